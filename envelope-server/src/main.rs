//! `envelope-server`: parses the command line and hands over to the library
//! ([`envelope_server::cli`]); what is here belongs to the process: the allocator, the async
//! runtime and the exit status.
#![warn(missing_docs)]

use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

use envelope_server::cli::{Cli, exit_code};

/// jemalloc rather than glibc's malloc: every request makes and frees many small allocations,
/// which jemalloc serves faster from its per-thread caches, while its peaks under concurrent
/// uploads stay at glibc's or below and streamed downloads stay bounded (mimalloc was faster but
/// held more memory). Figures: docs/PERFORMANCE.md, "jemalloc". The load bench sets the same.
#[global_allocator]
static GLOBAL: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// How long the runtime waits, once `main`'s work is done, for blocking tasks (a PDF
/// inspection has no await point at which it could be stopped).
const BLOCKING_TASKS_LIMIT: Duration = Duration::from_millis(500);

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Some(request) = cli.render_page() {
        // No runtime and no logging: the worker reads, draws and writes, under its limits.
        return envelope_core::render::run_worker(request);
    }
    cli.init_logging();
    // Built by hand rather than with `#[tokio::main]`: dropping a runtime waits for every
    // blocking task without limit, and SIGTERM must end the process whatever PDF work runs.
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(cli.run());
    runtime.shutdown_timeout(BLOCKING_TASKS_LIMIT);
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            exit_code(&*e)
        }
    }
}
