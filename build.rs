//! Generates the parser from `grammar/litmus.lalrpop`.
fn main() {
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"))
        .process()
        .expect("grammar/litmus.lalrpop must build");
    println!("cargo:rerun-if-changed=grammar");
}
