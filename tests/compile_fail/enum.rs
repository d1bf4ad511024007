use reflectable::Reflectable;

#[derive(Reflectable, Default)]
#[rtti(id = 1091)]
enum Weather {
    #[default]
    #[rtti(id = 1)]
    Sunny,
    Rainy,
    #[rtti(id = 1)]
    Windy {
        #[rtti(id = 0)]
        speed: f32,
    },
    #[rtti(id = 3, colour = "grey")]
    Cloudy,
}

fn main() {}
