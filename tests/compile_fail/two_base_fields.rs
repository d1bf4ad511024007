use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1111, abstract)]
struct Resource {
    #[rtti(id = 1)]
    path: String,
}

#[derive(Reflectable, Default)]
#[rtti(id = 1112, abstract)]
struct Named {
    #[rtti(id = 1)]
    name: String,
}

#[derive(Reflectable, Default)]
#[rtti(id = 1113)]
struct Texture {
    #[rtti(base)]
    resource: Resource,
    #[rtti(base)]
    named: Named,
}

fn main() {}
