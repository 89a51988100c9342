//! The fusion cache: fused programs kept on disk, so that running an
//! unchanged program again does not analyse and fuse it again.
//!
//! Access analysis and fusion can take seconds on a large program (an
//! 80-rule linter), the same every run; `treefuse run` (and `fuse`,
//! `explain`, `check-equiv`) reads the [`FusedProgram`] it needs from here
//! when the program and the fusion options are those of an earlier run.
//! Checking the program still happens every run (the engines need the
//! checked model; the cache stores only the fused IR, which refers to the
//! model by ids).
//!
//! **Key** ([`CacheKey`]): a BLAKE3 hash of the cache's
//! [`FORMAT_VERSION`], the treefuse version, the identity of the running
//! executable (its size and modification time, so a rebuilt tool, whose
//! fuser may decide differently under the same version number, never reads
//! what an older build wrote), the fusion options, and every file of the
//! program: its path relative to the program (a directory program's files
//! below the directory, a one-file program's file by its name) and its
//! text, in the order the program is read.
//!
//! **Place** ([`FusionCache::from_env`]): `$TREEFUSE_CACHE_DIR` if set,
//! else `$XDG_CACHE_HOME/treefuse`, else `$HOME/.cache/treefuse`; one file
//! per key, `fused-<key in hex>.bin`. `treefuse cache dir` prints the
//! place, `treefuse cache clear` removes the entries (only files named as
//! this module names them).
//!
//! **File**: a header (magic text, [`FORMAT_VERSION`], the key, the
//! payload's length and BLAKE3 hash) and the payload, the fused program in
//! `postcard`'s compact encoding. An entry is used only if every part of
//! the header matches, the payload decodes to the end, and the decoded
//! program passes [`FusedProgram::check_fits`] against the checked
//! program; anything else (a truncated, corrupt, foreign or old-format
//! file) is a miss, and the fresh result is written over it. Nothing about
//! the cache is ever an error: a directory that cannot be created or
//! written is skipped (the reason goes to [`Fusion::note`], which `run
//! --stats` prints).
//!
//! **Writing** is atomic: the entry goes to a temporary file in the same
//! directory, which is then renamed over the entry's name, so a concurrent
//! run reads either the old entry, the new one or none, never half of one
//! (two runs that miss together both fuse and both write the same bytes).
//! After a write the directory is pruned to the [`MAX_ENTRIES`] entries used
//! most recently (a hit refreshes its entry's modification time) and
//! [`MAX_BYTES`] in all, and temporary files older than an hour (left by a
//! run that was killed) are removed.

use crate::Program;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};
use treefuse_fusion::{FusedProgram, FusionOptions};
use treefuse_syntax::SourceMap;

/// Version of the file layout and of the encoding of [`FusedProgram`].
/// Bump it whenever either changes; it is part of the key and of the
/// header, so a build never reads another format.
pub const FORMAT_VERSION: u32 = 2;

/// Most entries kept in the directory (the most recently used).
pub const MAX_ENTRIES: usize = 64;

/// Most bytes of entries kept in the directory (the most recently used
/// entries that fit; the newest is always kept).
pub const MAX_BYTES: u64 = 512 << 20;

/// The first bytes of every entry.
const MAGIC: &[u8] = b"treefuse fusion cache\n";

/// Bytes of the header: magic, format version, key, payload length,
/// payload hash.
const HEADER_LEN: usize = MAGIC.len() + 4 + 32 + 8 + 32;

/// Prefix and suffix of entry file names.
const ENTRY_PREFIX: &str = "fused-";
const ENTRY_SUFFIX: &str = ".bin";
/// Prefix of temporary files (hidden, so directory listings show entries).
const TEMP_PREFIX: &str = ".tmp-fused-";

/// What a fused program is stored under: a BLAKE3 hash of everything the
/// fused program depends on (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct CacheKey([u8; 32]);

impl CacheKey {
    /// The key of `sources` fused under `options` by this build of the
    /// tool; `None` when the running executable cannot be identified
    /// (then nothing could tell this build's entries from another's, and
    /// the cache is not used).
    pub fn new(sources: &SourceMap, options: &FusionOptions) -> Option<CacheKey> {
        Some(Self::with_build(sources, options, build_identity()?))
    }

    /// The key for a given build identity (tests give their own).
    fn with_build(sources: &SourceMap, options: &FusionOptions, build: &str) -> CacheKey {
        let mut h = blake3::Hasher::new();
        let mut field = |bytes: &[u8]| {
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(MAGIC);
        field(&FORMAT_VERSION.to_le_bytes());
        field(env!("CARGO_PKG_VERSION").as_bytes());
        field(build.as_bytes());
        // Every option, by name: a new one will not compile until it is
        // part of the key.
        let FusionOptions {
            max_group,
            max_repeat,
        } = options;
        field(&(*max_group as u64).to_le_bytes());
        field(&(*max_repeat as u64).to_le_bytes());
        let files: Vec<(String, &str)> = program_files(sources);
        field(&(files.len() as u64).to_le_bytes());
        for (path, text) in &files {
            field(path.as_bytes());
            field(text.as_bytes());
        }
        CacheKey(*h.finalize().as_bytes())
    }

    /// The key in hex (the entry's file name is `fused-<hex>.bin`).
    pub fn hex(&self) -> String {
        blake3::Hash::from_bytes(self.0).to_hex().to_string()
    }
}

/// The program's files as (path relative to the program, text), in order.
fn program_files(sources: &SourceMap) -> Vec<(String, &str)> {
    let root = sources.name();
    sources
        .file_names()
        .zip(sources.file_ranges())
        .map(|(name, range)| {
            let relative = match name.strip_prefix(root) {
                Some(rest) if !rest.is_empty() => rest.trim_start_matches(['/', '\\']).to_string(),
                // A one-file program: the file by its own name.
                _ => Path::new(name)
                    .file_name()
                    .map_or_else(|| name.to_string(), |n| n.to_string_lossy().into_owned()),
            };
            (relative, sources.text().get(range).unwrap_or(""))
        })
        .collect()
}

/// The running executable's size and modification time, once per process.
fn build_identity() -> Option<&'static str> {
    static ID: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let meta = std::env::current_exe().ok()?.metadata().ok()?;
        let modified = meta
            .modified()
            .ok()?
            .duration_since(SystemTime::UNIX_EPOCH)
            .ok()?;
        Some(format!(
            "exe {} bytes, modified {}",
            meta.len(),
            modified.as_nanos()
        ))
    })
    .as_deref()
}

/// Whether a fused program came from the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheUse {
    /// Read from the cache.
    Hit,
    /// Fused (and then written to the cache, unless [`Fusion::note`] says
    /// why not).
    Miss,
    /// The cache was not consulted (turned off, or no place for it).
    Off,
}

impl CacheUse {
    /// `hit`, `miss` or `off`, as `run --stats` writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            CacheUse::Hit => "hit",
            CacheUse::Miss => "miss",
            CacheUse::Off => "off",
        }
    }
}

/// A fused program and how it was had ([`Program::fuse_cached`]).
#[derive(Debug)]
pub struct Fusion {
    /// The fused program.
    pub fused: FusedProgram,
    /// Whether it came from the cache.
    pub cache: CacheUse,
    /// The time it took: reading the entry on a hit; analysis, fusion and
    /// writing the entry on a miss.
    pub time: Duration,
    /// Something about the cache a user may want to know: an entry that
    /// was ignored (and why), an entry that could not be written.
    pub note: Option<String>,
}

/// A directory of cached fused programs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FusionCache {
    dir: PathBuf,
}

/// Why an entry was not used.
enum Unusable {
    /// There is none.
    Absent,
    /// There is one, but it cannot be used.
    Bad(String),
}

impl FusionCache {
    /// A cache in `dir` (created when the first entry is written).
    pub fn new(dir: impl Into<PathBuf>) -> FusionCache {
        FusionCache { dir: dir.into() }
    }

    /// The cache where the environment puts it: `$TREEFUSE_CACHE_DIR`,
    /// else `$XDG_CACHE_HOME/treefuse` (an absolute path, as the XDG base
    /// directory specification asks), else `$HOME/.cache/treefuse`; `None`
    /// when none of them is set (empty counts as unset).
    pub fn from_env() -> Option<FusionCache> {
        let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        if let Some(dir) = var("TREEFUSE_CACHE_DIR") {
            return Some(FusionCache::new(dir));
        }
        if let Some(xdg) = var("XDG_CACHE_HOME").map(PathBuf::from) {
            if xdg.is_absolute() {
                return Some(FusionCache::new(xdg.join("treefuse")));
            }
        }
        var("HOME").map(|home| FusionCache::new(PathBuf::from(home).join(".cache/treefuse")))
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of the entry for `key`.
    pub fn entry_path(&self, key: &CacheKey) -> PathBuf {
        self.dir
            .join(format!("{ENTRY_PREFIX}{}{ENTRY_SUFFIX}", key.hex()))
    }

    /// The fused program stored under `key`, if there is a usable one for
    /// `program` (the checked model the stored ids must fit).
    fn load(
        &self,
        key: &CacheKey,
        program: &treefuse_sema::Program,
    ) -> Result<FusedProgram, Unusable> {
        let path = self.entry_path(key);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                return Err(Unusable::Absent)
            }
            Err(e) => return Err(Unusable::Bad(format!("cannot read it: {e}"))),
        };
        let fused = decode(&bytes, key).map_err(Unusable::Bad)?;
        fused
            .check_fits(program)
            .map_err(|e| Unusable::Bad(format!("it does not fit the program: {e}")))?;
        // Most recently used first when pruning.
        if let Ok(f) = std::fs::File::options().append(true).open(&path) {
            let _ = f.set_modified(SystemTime::now());
        }
        Ok(fused)
    }

    /// Stores `fused` under `key`, atomically, then prunes the directory.
    pub fn store(&self, key: &CacheKey, fused: &FusedProgram) -> Result<(), String> {
        let bytes = encode(fused, key)?;
        std::fs::create_dir_all(&self.dir)
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = self.dir.join(format!(
            "{TEMP_PREFIX}{}.{}.{n}",
            key.hex(),
            std::process::id()
        ));
        let written = std::fs::write(&temp, &bytes)
            .and_then(|()| std::fs::rename(&temp, self.entry_path(key)));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&temp);
            return Err(format!("cannot write to {}: {e}", self.dir.display()));
        }
        self.prune();
        Ok(())
    }

    /// The entries and temporary files of this cache in its directory:
    /// (path, is an entry, size, modification time).
    fn files(&self) -> std::io::Result<Vec<(PathBuf, bool, u64, SystemTime)>> {
        let mut out = Vec::new();
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let is_entry = name
                .strip_prefix(ENTRY_PREFIX)
                .and_then(|rest| rest.strip_suffix(ENTRY_SUFFIX))
                .is_some_and(is_hex_key);
            let is_temp = name
                .strip_prefix(TEMP_PREFIX)
                .and_then(|rest| rest.split('.').next())
                .is_some_and(is_hex_key);
            if !is_entry && !is_temp {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            let modified = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            out.push((entry.path(), is_entry, meta.len(), modified));
        }
        Ok(out)
    }

    /// Keeps the most recently used entries within [`MAX_ENTRIES`] and
    /// [`MAX_BYTES`]; removes temporary files older than an hour.
    fn prune(&self) {
        let Ok(files) = self.files() else { return };
        let now = SystemTime::now();
        let mut entries = Vec::new();
        for (path, is_entry, size, modified) in files {
            if is_entry {
                entries.push((modified, size, path));
            } else if now
                .duration_since(modified)
                .is_ok_and(|age| age > Duration::from_secs(3600))
            {
                let _ = std::fs::remove_file(&path);
            }
        }
        entries.sort_by_key(|e| std::cmp::Reverse(e.0));
        let mut total = 0u64;
        for (i, (_, size, path)) in entries.iter().enumerate() {
            total += size;
            if i > 0 && (i >= MAX_ENTRIES || total > MAX_BYTES) {
                let _ = std::fs::remove_file(path);
            }
        }
    }

    /// Removes every entry and temporary file of the cache (no other
    /// file); returns how many entries and their bytes.
    pub fn clear(&self) -> std::io::Result<(usize, u64)> {
        let mut removed = (0, 0);
        for (path, is_entry, size, _) in self.files()? {
            match std::fs::remove_file(&path) {
                Ok(()) if is_entry => {
                    removed.0 += 1;
                    removed.1 += size;
                }
                Ok(()) => {}
                // Removed meanwhile by another run.
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(removed)
    }

    /// The number of entries and their bytes.
    pub fn usage(&self) -> std::io::Result<(usize, u64)> {
        Ok(self
            .files()?
            .into_iter()
            .filter(|f| f.1)
            .fold((0, 0), |(n, b), f| (n + 1, b + f.2)))
    }
}

fn is_hex_key(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The bytes of an entry: header and payload.
pub fn encode(fused: &FusedProgram, key: &CacheKey) -> Result<Vec<u8>, String> {
    let payload =
        postcard::to_stdvec(fused).map_err(|e| format!("cannot encode the fused program: {e}"))?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&key.0);
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(blake3::hash(&payload).as_bytes());
    bytes.extend_from_slice(&payload);
    Ok(bytes)
}

/// The fused program of an entry's bytes, if they are a whole entry of
/// this format for `key`; else why not.
pub fn decode(bytes: &[u8], key: &CacheKey) -> Result<FusedProgram, String> {
    let mut rest = bytes;
    let mut take = |n: usize| -> Result<&[u8], String> {
        if rest.len() < n {
            return Err("it is truncated".into());
        }
        let (head, tail) = rest.split_at(n);
        rest = tail;
        Ok(head)
    };
    if take(MAGIC.len())? != MAGIC {
        return Err("it is not a fusion cache entry".into());
    }
    let version = take(4)?;
    if version != FORMAT_VERSION.to_le_bytes() {
        return Err(format!(
            "it has another format (version {:?}, this build reads {FORMAT_VERSION})",
            <[u8; 4]>::try_from(version).map(u32::from_le_bytes).ok()
        ));
    }
    if take(32)? != key.0 {
        return Err("it was written for another key".into());
    }
    let len = take(8)?;
    let len = <[u8; 8]>::try_from(len).map_or(u64::MAX, u64::from_le_bytes);
    let hash = <[u8; 32]>::try_from(take(32)?).map_err(|_| "it is truncated".to_string())?;
    if rest.len() as u64 != len {
        return Err(format!(
            "its payload has {} bytes, its header says {len}",
            rest.len()
        ));
    }
    if *blake3::hash(rest).as_bytes() != hash {
        return Err("its payload does not match its checksum".into());
    }
    match postcard::take_from_bytes::<FusedProgram>(rest) {
        Ok((fused, [])) => Ok(fused),
        Ok(_) => Err("its payload has bytes after the fused program".into()),
        Err(e) => Err(format!("its payload does not decode: {e}")),
    }
}

impl Program {
    /// Fuses every `fuse` item under `options`, through `cache` when one is
    /// given: a usable entry for this program's files and options is read
    /// instead of analysing and fusing, and a fresh result is stored.
    /// The result is the same [`FusedProgram`] either way.
    pub fn fuse_cached(&self, options: &FusionOptions, cache: Option<&FusionCache>) -> Fusion {
        let started = Instant::now();
        let key = cache.and_then(|c| Some((c, CacheKey::new(&self.sources, options)?)));
        let Some((cache, key)) = key else {
            let fused = self.fuse_all(options);
            return Fusion {
                fused,
                cache: CacheUse::Off,
                time: started.elapsed(),
                note: cache.map(|_| "the running executable cannot be identified".to_string()),
            };
        };
        let mut note = match cache.load(&key, &self.model) {
            Ok(fused) => {
                return Fusion {
                    fused,
                    cache: CacheUse::Hit,
                    time: started.elapsed(),
                    note: None,
                }
            }
            Err(Unusable::Absent) => None,
            Err(Unusable::Bad(why)) => Some(format!(
                "ignored the cache entry {} ({why}); it is written anew",
                cache.entry_path(&key).display()
            )),
        };
        let fused = self.fuse_all(options);
        if let Err(e) = cache.store(&key, &fused) {
            note = Some(match note {
                Some(n) => format!("{n}; but {e}"),
                None => format!("not cached: {e}"),
            });
        }
        Fusion {
            fused,
            cache: CacheUse::Miss,
            time: started.elapsed(),
            note,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> FusionOptions {
        FusionOptions::default()
    }

    #[test]
    fn keys_depend_on_text_paths_options_and_build() {
        let a = SourceMap::single("a.tf", "tree L { }");
        let key = |s: &SourceMap, o: &FusionOptions, b: &str| CacheKey::with_build(s, o, b);
        let k = key(&a, &options(), "b1");
        assert_eq!(k, key(&a, &options(), "b1"));
        // The same file elsewhere is the same program.
        assert_eq!(
            k,
            key(
                &SourceMap::single("x/y/a.tf", "tree L { }"),
                &options(),
                "b1"
            )
        );
        assert_ne!(
            k,
            key(&SourceMap::single("a.tf", "tree L {  }"), &options(), "b1")
        );
        assert_ne!(
            k,
            key(&SourceMap::single("b.tf", "tree L { }"), &options(), "b1")
        );
        assert_ne!(k, key(&a, &options(), "b2"));
        let o = FusionOptions {
            max_group: 3,
            ..options()
        };
        assert_ne!(k, key(&a, &o, "b1"));
        let o = FusionOptions {
            max_repeat: 3,
            ..options()
        };
        assert_ne!(k, key(&a, &o, "b1"));
        // Where one file ends and the next begins matters, and so do the
        // files' paths below the directory.
        let files = |f: &[(&str, &str)]| {
            SourceMap::from_files(
                "d",
                f.iter()
                    .map(|(n, t)| (n.to_string(), t.to_string()))
                    .collect(),
            )
        };
        let ab = key(
            &files(&[("d/a.tf", "x"), ("d/b.tf", "y")]),
            &options(),
            "b1",
        );
        assert_ne!(
            ab,
            key(
                &files(&[("d/a.tf", "xy"), ("d/b.tf", "")]),
                &options(),
                "b1"
            )
        );
        assert_ne!(
            ab,
            key(
                &files(&[("d/a.tf", "x"), ("d/c.tf", "y")]),
                &options(),
                "b1"
            )
        );
        assert_eq!(
            ab,
            key(
                &SourceMap::from_files(
                    "e",
                    vec![("e/a.tf".into(), "x".into()), ("e/b.tf".into(), "y".into())]
                ),
                &options(),
                "b1"
            )
        );
    }

    #[test]
    fn entries_decode_only_whole_and_for_their_key() {
        let fused = FusedProgram::default();
        let key = CacheKey([7; 32]);
        let bytes = encode(&fused, &key).unwrap();
        assert_eq!(decode(&bytes, &key).unwrap(), fused);
        assert!(decode(&bytes, &CacheKey([8; 32])).is_err());
        for cut in 0..bytes.len() {
            assert!(decode(&bytes[..cut], &key).is_err(), "cut at {cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode(&longer, &key).is_err());
        for i in 0..bytes.len() {
            let mut flipped = bytes.clone();
            flipped[i] ^= 0x10;
            assert!(decode(&flipped, &key).is_err(), "byte {i} flipped");
        }
    }
}
