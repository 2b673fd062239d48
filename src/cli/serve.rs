//! `pomset serve`: the web explorer (`crate::serve`).

/// The examples and notes under `pomset serve --help`.
pub const AFTER_HELP: &str = "\
Examples:
  pomset serve                        http://127.0.0.1:8417/
  pomset serve --port 0               any free port (printed)

The page and its JSON API (POST /api/decide, /api/explain, /api/draw,
/api/pomsets, /api/refine, /api/vary, /api/options; GET /api/examples) run
every decision within limits (a timeout of 10 s by default, at most 60 s,
and a pomset count), so a large test cannot hang the server. The book's
\"The web explorer\" is a tour.";

/// `pomset serve`'s flags.
#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The port (0: any free one).
    #[arg(long, default_value_t = 8417)]
    pub port: u16,
    /// The address to listen on; anything but a loopback address lets
    /// other machines reach the explorer.
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub bind: String,
}

/// `pomset serve`: listens until interrupted.
pub fn serve(args: &ServeArgs) -> Result<bool, String> {
    crate::serve::run(&args.bind, args.port).map(|()| true)
}
