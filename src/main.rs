fn main() -> std::process::ExitCode {
    skilldeck::cli::main()
}
