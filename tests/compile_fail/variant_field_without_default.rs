use reflectable::Reflectable;

struct Socket;

#[derive(Reflectable, Default)]
#[rtti(id = 1151)]
enum Connection {
    #[default]
    #[rtti(id = 1)]
    Closed,
    #[rtti(id = 2)]
    Open {
        #[rtti(skip)]
        socket: Socket,
    },
}

fn main() {}
