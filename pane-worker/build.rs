//! Link-time search path for libghostty-vt, so the worker and its tests run both from a checkout
//! (the fetched vendor dir) and from an installed layout (`bin/` next to `lib/`, or side by side).
fn main() {
    println!("cargo:rerun-if-env-changed=LIBGHOSTTY_VT_DIR");
    let dev =
        std::env::var("LIBGHOSTTY_VT_DIR").expect("LIBGHOSTTY_VT_DIR is set by .cargo/config.toml [env]");
    println!("cargo:rustc-link-arg=-Wl,-rpath,$ORIGIN:$ORIGIN/../lib:{dev}/lib");
    println!("cargo:rustc-link-arg-bins=-no-pie");
}
