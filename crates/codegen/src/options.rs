//! What [`crate::generate`] is asked to do: the options of one generation
//! and the source the program came from. A leaf module, so that every
//! layer of the generator can read the options without depending on the
//! crate root.

/// The source a program was compiled from.
#[derive(Clone, Debug)]
pub struct SourceInfo {
    /// Name shown in messages (the program's file or directory).
    pub file_name: String,
    /// The program's files; spans are offsets into their text.
    pub sources: treefuse_syntax::SourceMap,
}

impl SourceInfo {
    /// A program of one file.
    pub fn new(file_name: &str, text: &str) -> SourceInfo {
        SourceInfo {
            file_name: file_name.to_string(),
            sources: treefuse_syntax::SourceMap::single(file_name, text),
        }
    }
}

/// Options of [`generate`].
#[derive(Clone, Debug)]
pub struct CodegenOptions {
    /// Path of the Rust module that supplies host pure functions (those
    /// declared without a body), for example `crate::host`.
    pub host_module: Option<String>,
    /// The program's source: line and column numbers of runtime errors, and
    /// the schema of the JSON layer.
    pub source: Option<SourceInfo>,
    /// Generate the JSON layer (`json` module, needs `source`).
    pub runtime_interop: bool,
    /// Participant masks as `WideMask`s even where an integer would do:
    /// the representation of programs with more than 128 participants in
    /// one fused function, exercised on small programs (the differential
    /// tests do).
    pub wide_masks: bool,
    /// Add `run_<fuse>_parallel` entry points, which run the merged loops
    /// that the fuser found independent (`LoopGroup::parallel`) on rayon's
    /// threads; the traversals become generic over `TreeAccess` for it.
    /// Off, the module is what it was without the option.
    pub parallel: bool,
}

impl Default for CodegenOptions {
    fn default() -> Self {
        CodegenOptions {
            host_module: None,
            source: None,
            runtime_interop: true,
            wide_masks: false,
            parallel: false,
        }
    }
}
