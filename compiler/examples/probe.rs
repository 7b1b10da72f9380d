fn main() {
    let t = std::env::args().nth(1).unwrap();
    println!("{:#?}", streamform::yaml::parse(&t));
}
