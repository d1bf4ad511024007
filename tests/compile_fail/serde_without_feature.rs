use reflectable::Reflectable;

#[derive(Default)]
struct Settings;

#[derive(Reflectable, Default)]
#[rtti(id = 1142)]
struct Profile {
    #[rtti(id = 1, serde)]
    settings: Settings,
}

fn main() {}
