fn main() {
    print!(
        "{}",
        treefuse_progen::generate(std::env::args().nth(1).unwrap().parse().unwrap())
    );
}
