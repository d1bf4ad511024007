use reflectable::PlainType;

#[derive(PlainType)]
#[plain(pod)]
enum Shape {
    Point,
    Circle(f32),
    Rect { w: f32, h: f32 },
}

fn main() {}
