//! What a path a command deletes (or changes recursively) may name, among the directories the
//! guard protects.
//!
//! # The rules it keeps
//!
//! - A path is read lexically: `//` and `/./` collapse, `..` climbs (`/tmp/../etc` is `/etc`),
//!   a relative path is taken from the command's directory. A trailing pattern that matches
//!   every name (`*`, `.*`, `?*`, `[!.]*`) names everything in its directory, which counts as
//!   the directory.
//! - A word not known is judged by what could make it a protected directory: a glob pattern
//!   matches names (`/u*` may be `/usr`); a value not known stands for any text, `/` included
//!   (`"$X/etc"` may be `/etc`; `"$X/out"` never names a protected directory), except that it
//!   is never taken for `..` and, after a directory not known, never for a user's name (`$X/bob`
//!   is not taken for `/home/bob`). Climbing with `..` out of a value not known (`"$X/.."`,
//!   `"$TMPDIR/../etc"`) can lead anywhere.
//! - A `..` after a name may climb out of a symbolic link (the system resolves links before
//!   `..`: `/var/tmp/../etc` is `/etc` where `/var/tmp` links to `/tmp`): what follows the last
//!   such `..` is also judged as if after a directory not known.
//! - Protected from a recursive delete: the root, the system directories, everything under
//!   the directories the system runs and boots from (`/etc`, `/boot`, `/bin`, `/sbin`, `/lib*`,
//!   `/usr/bin`, `/usr/sbin`, `/dev`, `/sys`), a home (`~`, `/home/NAME`, `/Users/NAME`,
//!   `/root`), the project directory and each directory above it, and the files the system
//!   cannot run without (`/etc/passwd`, `/etc/shadow`, `/etc/sudoers`, `/etc/fstab`, …). When the
//!   project's own path is not known, relative paths are the project's: the project itself,
//!   everything in it, and a path climbing out of it to nothing more (`..`, `../*`) are
//!   protected. A quoted `~` (`rm -rf "~/"`) is a directory named `~`, but is taken for the home
//!   it is written as.
//! - Protected from deleting files (`rm` without `-r`, `os.remove`, `unlink`): the files the
//!   system cannot run without, the programs and libraries under `/bin`, `/sbin`, `/lib*`,
//!   `/usr/bin`, `/usr/sbin` and `/boot`, and everything in a protected directory (`rm -f
//!   /etc/*`, `rm ~/*`); not a file of the project, nor one of `/etc` in general.

use std::path::{Component, Path};

use hookchain_shell::{Part, Word};

/// The system directories whose loss breaks the machine.
const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/boot",
    "/dev",
    "/etc",
    "/home",
    "/lib",
    "/lib32",
    "/lib64",
    "/opt",
    "/proc",
    "/root",
    "/sbin",
    "/srv",
    "/sys",
    "/usr",
    "/var",
    "/usr/bin",
    "/usr/lib",
    "/usr/lib64",
    "/usr/local",
    "/usr/sbin",
    "/usr/share",
    "/usr/include",
    "/var/lib",
    "/var/log",
    "/System",
    "/Library",
    "/Applications",
    "/Users",
    "/private",
    "/private/etc",
    "/private/var",
];

/// The directories whose whole content the system runs or boots from: nothing under them is
/// deleted recursively.
const DEEP_DIRS: &[&str] = &[
    "/etc",
    "/boot",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/usr/bin",
    "/usr/sbin",
    "/dev",
    "/sys",
    "/System",
    "/private/etc",
];

/// The directories of programs and libraries: no file under them is deleted.
const PROGRAM_DIRS: &[&str] = &[
    "/boot",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/usr/bin",
    "/usr/sbin",
];

/// The files the system cannot run without: accounts, privileges, mounts, name resolution.
const CRITICAL_FILES: &[&str] = &[
    "/etc/passwd",
    "/etc/shadow",
    "/etc/group",
    "/etc/gshadow",
    "/etc/sudoers",
    "/etc/fstab",
    "/etc/crypttab",
    "/etc/nsswitch.conf",
    "/etc/pam.conf",
    "/etc/ld.so.conf",
    "/etc/ld.so.cache",
    "/etc/hosts",
    "/etc/resolv.conf",
    "/etc/login.defs",
    "/private/etc/passwd",
    "/private/etc/sudoers",
    "/private/etc/hosts",
];

/// The directories of temporary files (for `delete_outside_temp`).
const TEMP_DIRS: &[&str] = &[
    "/tmp",
    "/var/tmp",
    "/private/tmp",
    "/private/var/folders",
    "/dev/shm",
];

/// What a path may name that the guard protects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Danger {
    /// It names one, whatever the line computes (`/`, `/etc`, `/?*`).
    Known(String),
    /// It may name one, depending on a value only known when the line runs.
    Unknown(String),
}

/// One character of a path, or a pattern or a value standing in it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Ch(char),
    /// `*`: any run of characters but `/`.
    Star,
    /// `?`: one character but `/`.
    Quest,
    /// `[…]`: one character of the class (as written).
    Class(String),
    /// A value not known: any text, `/` included.
    Any,
}

/// Where a path starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Base {
    Root,
    Home,
    /// A value not known (`$X/out`).
    Unknown,
    /// The command's directory.
    Relative,
}

/// What the guard is judging paths for.
pub(super) struct Scope<'a> {
    /// The command's directory: absolute, relative to the project (whose path is not known),
    /// or `None` when not known.
    pub(super) dir: Option<&'a Path>,
    /// The project directory, when known.
    pub(super) project: Option<&'a Path>,
    /// Every path outside the temporary directories is protected.
    pub(super) outside_temp: bool,
    /// The delete takes the whole of what the path names; `false` for a part of what is under
    /// it (`find . -name '*.pyc' -delete`), where the project and the directories holding it
    /// are not protected.
    pub(super) whole: bool,
    /// A recursive delete (or change); `false` for deleting files.
    pub(super) tree: bool,
}

/// What `word`, deleted (recursively when `scope.tree`), may name that is protected: `None`
/// when nothing.
pub(super) fn judge(word: &Word, scope: &Scope) -> Option<Danger> {
    if let Word::Static(s) = word
        && scope.tree
        && (s == "~" || s.starts_with("~/"))
        && s.trim_start_matches('~').trim_matches('/').is_empty()
    {
        return Some(Danger::Known(format!(
            "a directory named `~`, which is how your home is written (taken for it): `{s}`"
        )));
    }
    // `$TMPDIR/NAME` is in the temporary directory.
    let temp_var = matches!(word, Word::Dynamic(d) if matches!(
        d.parts.first(),
        Some(Part::Unknown { name: Some(n), .. }) if n == "TMPDIR"
    ));
    let (base, segs) = segments(word);
    if temp_var && scope.outside_temp {
        let comps = components(&segs[1..]);
        let (_, above, lost) = climb(Vec::new(), comps.clone());
        if !comps.is_empty() && above == 0 && !lost {
            return judge(
                word,
                &Scope {
                    outside_temp: false,
                    ..*scope
                },
            );
        }
    }
    let unknown = segs.contains(&Seg::Any) || base == Base::Unknown || base == Base::Home;
    let shown = || match word {
        Word::Static(s) => s.clone(),
        Word::Dynamic(d) => parts_text(&d.parts),
    };
    let comps = components(&segs);
    let lexical = match base {
        Base::Home => home(comps.clone(), scope, &shown),
        Base::Root => absolute(Vec::new(), comps.clone(), scope, &shown, false),
        // The first component holds the value: anything, `/` and several names included.
        Base::Unknown => absolute(Vec::new(), comps.clone(), scope, &shown, true),
        Base::Relative => match scope.dir {
            Some(dir) if dir.is_absolute() => {
                absolute(names_of(dir), comps.clone(), scope, &shown, false)
            }
            Some(dir) => project_relative(dir, comps.clone(), scope, &shown, unknown),
            None => {
                // From a directory not known: any directory, then the path.
                let mut all = vec![Comp::Pattern(vec![Seg::Any])];
                all.extend(comps.clone());
                absolute(Vec::new(), all, scope, &shown, true)
            }
        },
    };
    if lexical.is_some() {
        return lexical;
    }
    // What follows a `..` that may have climbed out of a link, after any directory.
    let last = comps.iter().rposition(|c| *c == Comp::Name("..".into()))?;
    let tail = comps[last + 1..].to_vec();
    if tail.is_empty() {
        return None;
    }
    let mut all = vec![Comp::Pattern(vec![Seg::Any])];
    all.extend(tail);
    let plain = Scope {
        outside_temp: false,
        ..*scope
    };
    match absolute(Vec::new(), all, &plain, &shown, true)? {
        Danger::Known(what) | Danger::Unknown(what) => Some(Danger::Unknown(format!(
            "{what}, where a `..` climbs out of what may be a link"
        ))),
    }
}

/// The names of an absolute directory's path.
fn names_of(dir: &Path) -> Vec<Comp> {
    dir.components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(Comp::Name(n.to_string_lossy().into())),
            _ => None,
        })
        .collect()
}

/// Whether `word` may name a device that holds data (`/dev/sda`, not `/dev/null`), and
/// whether that depends on a value not known; `any_base`: a word that starts with a value not
/// known (`$DISK`) may be one.
pub(super) fn device(word: &Word, any_base: bool) -> Option<Danger> {
    match word {
        Word::Static(s) => is_device(s).then(|| Danger::Known(s.clone())),
        Word::Dynamic(d) => {
            let (base, segs) = segments(word);
            let text: String = segs
                .iter()
                .map_while(|s| match s {
                    Seg::Ch(c) => Some(*c),
                    _ => None,
                })
                .collect();
            let may = match base {
                Base::Unknown => any_base,
                Base::Root => {
                    "/dev/".starts_with(&text) && text.len() < 5
                        || (text.starts_with("/dev/") && !harmless_device(&text[5..]))
                }
                _ => false,
            };
            may.then(|| Danger::Unknown(parts_text(&d.parts)))
        }
    }
}

/// A device file that holds data: anything under `/dev/` but the pseudo-devices.
pub(super) fn is_device(path: &str) -> bool {
    let Some(name) = path.strip_prefix("/dev/") else {
        return false;
    };
    !harmless_device(name)
}

/// A pseudo-device, or the start of one's name (`null`, `fd/1`, `pts/0`).
fn harmless_device(name: &str) -> bool {
    let harmless = [
        "null", "zero", "stdout", "stderr", "stdin", "tty", "random", "urandom", "full", "ptmx",
    ];
    harmless.contains(&name)
        || name.starts_with("fd/")
        || name.starts_with("pts/")
        || name.starts_with("shm/")
        || name.starts_with("tty")
        || name.starts_with("tcp/")
        || name.starts_with("udp/")
}

/// A word's parts as text, for a message (`$NAME` for a variable's value not known, `…` for
/// another).
pub(super) fn parts_text(parts: &[Part]) -> String {
    super::written(parts, &|name| {
        name.map_or("…".to_owned(), |n| format!("${n}"))
    })
}

/// The word's start and its characters, patterns and values.
fn segments(word: &Word) -> (Base, Vec<Seg>) {
    let mut segs = Vec::new();
    let mut home_first = false;
    match word {
        Word::Static(s) => segs.extend(s.chars().map(Seg::Ch)),
        Word::Dynamic(d) => {
            for (i, part) in d.parts.iter().enumerate() {
                match part {
                    Part::Text(t) => segs.extend(t.chars().map(Seg::Ch)),
                    Part::Glob(g) => segs.push(match g.as_str() {
                        "*" => Seg::Star,
                        "?" => Seg::Quest,
                        class => Seg::Class(class.to_owned()),
                    }),
                    Part::Unknown { name, .. } => {
                        if i == 0 && name.as_deref() == Some("HOME") {
                            home_first = true;
                        }
                        segs.push(Seg::Any);
                    }
                }
            }
        }
    }
    // `$HOME` (or `~`) followed by nothing or a `/`: the home directory.
    if home_first && segs.get(1).is_none_or(|s| *s == Seg::Ch('/')) {
        return (Base::Home, segs[1..].to_vec());
    }
    let base = match segs.first() {
        Some(Seg::Ch('/')) => Base::Root,
        Some(Seg::Any) => Base::Unknown,
        _ => Base::Relative,
    };
    (base, segs)
}

/// A component of a path.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Comp {
    Name(String),
    Pattern(Vec<Seg>),
}

impl Comp {
    fn unknown(&self) -> bool {
        matches!(self, Comp::Pattern(segs) if segs.contains(&Seg::Any))
    }

    /// A pattern that matches every name of its directory (`*`, `.*`, `?*`, `[!.]*`).
    fn every_name(&self) -> bool {
        let Comp::Pattern(segs) = self else {
            return false;
        };
        let wild = segs.contains(&Seg::Star);
        let only = segs.iter().enumerate().all(|(i, s)| match s {
            Seg::Ch('.') => i == 0,
            Seg::Ch(_) => false,
            _ => true,
        });
        wild && only
    }
}

/// The components of `segs`, split at `/`, empty ones and `.` left out (`..` kept).
fn components(segs: &[Seg]) -> Vec<Comp> {
    segs.split(|s| *s == Seg::Ch('/'))
        .filter(|c| !c.is_empty() && *c != [Seg::Ch('.')])
        .map(|c| {
            if c.iter().all(|s| matches!(s, Seg::Ch(_))) {
                Comp::Name(
                    c.iter()
                        .filter_map(|s| match s {
                            Seg::Ch(ch) => Some(*ch),
                            _ => None,
                        })
                        .collect(),
                )
            } else {
                Comp::Pattern(c.to_vec())
            }
        })
        .collect()
}

/// `..` taken out of `comps` from `start`: the components, how many climbed above `start`'s
/// beginning, and whether one climbed out of a value not known.
fn climb(start: Vec<Comp>, comps: Vec<Comp>) -> (Vec<Comp>, usize, bool) {
    let mut stack = start;
    let mut above = 0;
    let mut lost = false;
    for comp in comps {
        if comp == Comp::Name("..".into()) {
            match stack.pop() {
                Some(c) if c.unknown() => lost = true,
                Some(_) => {}
                None => above += 1,
            }
        } else {
            stack.push(comp);
        }
    }
    (stack, above, lost)
}

/// A path under the home directory.
fn home(comps: Vec<Comp>, scope: &Scope, shown: &dyn Fn() -> String) -> Option<Danger> {
    let (comps, above, lost) = climb(Vec::new(), comps);
    let contents = comps.len() == 1 && comps[0].every_name();
    let what = if lost {
        return Some(Danger::Unknown(format!(
            "`{}`, which climbs out of a directory computed when the line runs",
            shown()
        )));
    } else if above > 0 && scope.tree {
        "the directory above your home"
    } else if (comps.is_empty() && scope.tree) || contents {
        "your home directory"
    } else if scope.outside_temp {
        "a path outside the temporary directories (delete_outside_temp)"
    } else {
        return None;
    };
    Some(Danger::Known(format!("{what} (`{}`)", shown())))
}

/// A path relative to the project, whose own path is not known (`dir` is where the command
/// runs in it).
fn project_relative(
    dir: &Path,
    comps: Vec<Comp>,
    scope: &Scope,
    shown: &dyn Fn() -> String,
    unknown: bool,
) -> Option<Danger> {
    let start: Vec<Comp> = dir
        .components()
        .filter_map(|c| match c {
            Component::Normal(n) => Some(Comp::Name(n.to_string_lossy().into())),
            _ => None,
        })
        .collect();
    let (comps, above, lost) = climb(start, comps);
    let contents = comps.len() == 1 && comps[0].every_name();
    let what = if lost {
        "a path that climbs out of a directory computed when the line runs"
    } else if !scope.whole || !scope.tree {
        return None;
    } else if above > 0 && (comps.is_empty() || contents) {
        "a directory that holds the project"
    } else if above == 0 && comps.is_empty() {
        "the project directory"
    } else if above == 0 && contents {
        "everything in the project directory"
    } else if scope.outside_temp {
        "a path outside the temporary directories (delete_outside_temp)"
    } else if comps.first().is_some_and(|c| c.unknown()) && above == 0 {
        // `$X/out` from the project: an entry of a directory not known.
        return absolute(
            Vec::new(),
            comps,
            &Scope {
                dir: None,
                ..*scope
            },
            shown,
            true,
        );
    } else {
        return None;
    };
    let danger = format!("{what} (`{}`)", shown());
    Some(if unknown || lost {
        Danger::Unknown(danger)
    } else {
        Danger::Known(danger)
    })
}

/// How a protected path is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Guarded {
    /// The directory, and everything in it as a whole (`/usr`, `/usr/*`).
    Dir,
    /// The directory and anything under it (`/etc/nginx`).
    Deep,
    /// The file itself.
    File,
}

/// An absolute path: `start` (components of the command's directory, or none), then `comps`.
/// `unknown_base`: the first component is a value not known, standing for any directory.
fn absolute(
    start: Vec<Comp>,
    comps: Vec<Comp>,
    scope: &Scope,
    shown: &dyn Fn() -> String,
    unknown_base: bool,
) -> Option<Danger> {
    let (comps, _, lost) = climb(start, comps);
    let uncertain = unknown_base || comps.iter().any(Comp::unknown);
    if lost {
        return Some(Danger::Unknown(format!(
            "`{}`, which climbs out of a directory computed when the line runs",
            shown()
        )));
    }
    let mut protected: Vec<(String, &str, Guarded)> = Vec::new();
    let dirs = std::iter::once("/").chain(SYSTEM_DIRS.iter().copied());
    protected.extend(dirs.map(|d| {
        let what = if d == "/" {
            "the whole filesystem"
        } else {
            "a system directory"
        };
        (d.to_owned(), what, Guarded::Dir)
    }));
    if !unknown_base {
        // A value not known may be any file: only a path that pins where it is can be one.
        protected.extend(CRITICAL_FILES.iter().map(|f| {
            (
                (*f).to_owned(),
                "a file the system cannot run without",
                Guarded::File,
            )
        }));
        let (deep, what) = if scope.tree {
            (DEEP_DIRS, "what the system runs and boots from")
        } else {
            (PROGRAM_DIRS, "the system's programs and libraries")
        };
        protected.extend(deep.iter().map(|d| ((*d).to_owned(), what, Guarded::Deep)));
    }
    if let Some(project) = scope.project.filter(|_| scope.whole && scope.tree) {
        protected.push((
            project.display().to_string(),
            "the project directory",
            Guarded::Dir,
        ));
        protected.extend(project.ancestors().skip(1).map(|a| {
            (
                a.display().to_string(),
                "a directory that holds the project",
                Guarded::Dir,
            )
        }));
    }
    let pattern = pattern_of(&comps, unknown_base);
    // Everything in a directory (`/usr/*`) is the directory.
    let contents = comps
        .last()
        .filter(|c| c.every_name())
        .map(|_| pattern_of(&comps[..comps.len() - 1], unknown_base));
    let hit = protected.iter().find_map(|(path, what, guarded)| {
        let whole = match guarded {
            Guarded::Dir => scope.tree && matches(&pattern, path),
            Guarded::File => matches(&pattern, path),
            Guarded::Deep => matches(&pattern, path) || consumes(&pattern, &format!("{path}/")),
        };
        let all_in =
            *guarded != Guarded::File && contents.as_ref().is_some_and(|c| matches(c, path));
        (whole || all_in).then(|| format!("{what} (`{path}`)"))
    });
    let hit = hit.or_else(|| {
        // A user's home: `/home/NAME`, `/Users/NAME` (not after a value not known).
        let user = |c: &[Comp]| {
            c.len() == 2 && matches!(&c[0], Comp::Name(n) if n == "home" || n == "Users")
        };
        let whole = scope.tree && user(&comps);
        let all_in = comps.last().is_some_and(Comp::every_name) && user(&comps[..comps.len() - 1]);
        (!unknown_base && (whole || all_in)).then(|| "a user's home directory".to_owned())
    });
    if let Some(what) = hit {
        let said = format!("{what}: `{}`", shown());
        return Some(if uncertain {
            Danger::Unknown(said)
        } else {
            Danger::Known(said)
        });
    }
    if scope.outside_temp && scope.tree && !in_temp(&comps, unknown_base) {
        let said = format!(
            "a path outside the temporary directories (delete_outside_temp): `{}`",
            shown()
        );
        return Some(if uncertain {
            Danger::Unknown(said)
        } else {
            Danger::Known(said)
        });
    }
    None
}

/// `true` when the path is inside a temporary directory: under one by name, with a name of its
/// own after it (`$TMPDIR/x`, from a variable's value, is taken as one).
fn in_temp(comps: &[Comp], unknown_base: bool) -> bool {
    if unknown_base {
        return false;
    }
    let names: Vec<&str> = comps
        .iter()
        .map_while(|c| match c {
            Comp::Name(n) => Some(n.as_str()),
            Comp::Pattern(_) => None,
        })
        .collect();
    let path = format!("/{}", names.join("/"));
    TEMP_DIRS
        .iter()
        .any(|t| path.starts_with(&format!("{t}/")) && comps.len() > t.matches('/').count())
}

/// The path as a pattern over the whole of an absolute path.
fn pattern_of(comps: &[Comp], unknown_base: bool) -> Vec<Seg> {
    let mut out = Vec::new();
    for (i, comp) in comps.iter().enumerate() {
        if !(unknown_base && i == 0) {
            out.push(Seg::Ch('/'));
        }
        match comp {
            Comp::Name(n) => out.extend(n.chars().map(Seg::Ch)),
            Comp::Pattern(p) => out.extend(p.iter().cloned()),
        }
    }
    if out.is_empty() {
        out.push(Seg::Ch('/'));
    }
    out
}

/// For each position of `pattern`, whether the pattern up to it matches all of `text`.
fn reach(pattern: &[Seg], text: &str) -> Vec<bool> {
    let text: Vec<char> = text.chars().collect();
    // `at[j]`: the pattern so far matches `text[..j]`.
    let mut at = vec![false; text.len() + 1];
    at[0] = true;
    let mut ends = vec![at[text.len()]];
    for seg in pattern {
        let mut next = vec![false; text.len() + 1];
        match seg {
            Seg::Any | Seg::Star => {
                // Any run: from any position reached, up to a `/` for a star.
                let mut on = false;
                for j in 0..=text.len() {
                    on |= at[j];
                    next[j] = on;
                    if *seg == Seg::Star && j < text.len() && text[j] == '/' {
                        on = false;
                    }
                }
            }
            Seg::Quest | Seg::Class(_) | Seg::Ch(_) => {
                for j in 0..text.len() {
                    let c = text[j];
                    let ok = match seg {
                        Seg::Ch(x) => *x == c,
                        Seg::Quest => c != '/',
                        Seg::Class(class) => c != '/' && in_class(class, c),
                        _ => false,
                    };
                    next[j + 1] = at[j] && ok;
                }
            }
        }
        at = next;
        ends.push(at[text.len()]);
    }
    ends
}

/// `true` when `pattern` is plain text, with no wildcard (the path of a word known in full):
/// matching it is comparing text, with no table of positions to build.
fn is_literal(pattern: &[Seg]) -> bool {
    pattern.iter().all(|s| matches!(s, Seg::Ch(_)))
}

/// `true` when `pattern` matches all of `text`.
fn matches(pattern: &[Seg], text: &str) -> bool {
    if is_literal(pattern) {
        let mut chars = text.chars();
        return pattern
            .iter()
            .all(|s| matches!(s, Seg::Ch(c) if chars.next() == Some(*c)))
            && chars.next().is_none();
    }
    reach(pattern, text).last().copied().unwrap_or(false)
}

/// `true` when some text starting with `prefix` (and longer) matches `pattern`: the pattern
/// takes all of `prefix` and has something left.
fn consumes(pattern: &[Seg], prefix: &str) -> bool {
    if is_literal(pattern) {
        let mut taken = 0;
        for c in prefix.chars() {
            match pattern.get(taken) {
                Some(Seg::Ch(x)) if *x == c => taken += 1,
                _ => return false,
            }
        }
        return taken < pattern.len();
    }
    let ends = reach(pattern, prefix);
    ends.iter().enumerate().any(|(k, end)| {
        *end && (k < pattern.len() || matches!(pattern.last(), Some(Seg::Any | Seg::Star)))
    })
}

/// `true` when `c` is in the class `[…]` (`[!…]` and `[^…]` negate, `a-z` ranges).
fn in_class(class: &str, c: char) -> bool {
    let inner = class
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(class);
    let (negate, inner) = match inner.strip_prefix(['!', '^']) {
        Some(rest) => (true, rest),
        None => (false, inner),
    };
    let chars: Vec<char> = inner.chars().collect();
    let mut found = false;
    let mut i = 0;
    while i < chars.len() {
        if i + 2 < chars.len() && chars[i + 1] == '-' {
            found |= chars[i] <= c && c <= chars[i + 2];
            i += 3;
        } else {
            found |= chars[i] == c;
            i += 1;
        }
    }
    found != negate
}

#[cfg(test)]
mod tests {
    use super::*;
    use hookchain_shell::{Context, Line, Shell};

    fn judged(word: &str, dir: Option<&str>, project: Option<&str>) -> Option<Danger> {
        let line = Line::parse(&format!("rm -rf {word}"), Shell::Bash, &Context::new(""));
        let word = line.commands[0].args.last().unwrap().clone();
        let scope = Scope {
            dir: dir.map(Path::new),
            project: project.map(Path::new),
            outside_temp: false,
            whole: true,
            tree: true,
        };
        judge(&word, &scope)
    }

    #[test]
    fn a_pattern_matches_as_the_shell_matches_it() {
        let p = |s: &str| -> Vec<Seg> {
            s.chars()
                .map(|c| match c {
                    '*' => Seg::Star,
                    '?' => Seg::Quest,
                    '%' => Seg::Any,
                    c => Seg::Ch(c),
                })
                .collect()
        };
        assert!(matches(&p("/*"), "/etc"));
        assert!(!matches(&p("/*"), "/usr/lib"));
        assert!(matches(&p("/?*"), "/etc"));
        assert!(matches(&p("%/etc"), "/etc"));
        assert!(matches(&p("%"), "/"));
        assert!(!matches(&p("%/out"), "/usr"));
        assert!(matches(&p("/u*"), "/usr"));
        assert!(matches(&p("/usr/*"), "/usr/lib"));
        assert!(matches(
            &[Seg::Ch('/'), Seg::Class("[e]".into()), Seg::Star],
            "/etc"
        ));
    }

    #[test]
    fn what_a_word_may_name_follows_what_the_line_pins() {
        let known = |w: &str| matches!(judged(w, Some(""), None), Some(Danger::Known(_)));
        let unknown = |w: &str| matches!(judged(w, Some(""), None), Some(Danger::Unknown(_)));
        let fine = |w: &str| judged(w, Some(""), None).is_none();
        for w in [
            "/",
            "/*",
            "/?*",
            "/etc",
            "/usr/",
            "/u*",
            "/tmp/../etc",
            "~",
            "~/*",
            "~/..",
            ".",
            "*",
            "..",
            "../*",
            "/home/bob",
            "/home/*",
            "/etc/nginx/sites",
            "/etc/passwd",
            "\"~/\"",
        ] {
            assert!(known(w), "{w}: {:?}", judged(w, Some(""), None));
        }
        for w in [
            "\"$X\"",
            "$X/*",
            "\"$X/..\"",
            "\"$TMPDIR/../etc\"",
            "/$X",
            "/home/$USER",
            "\"$X/etc\"",
            "\"$X/\"",
            "/var/tmp/../etc",
            "build/../etc",
        ] {
            assert!(unknown(w), "{w}: {:?}", judged(w, Some(""), None));
        }
        for w in [
            "./build",
            "build/*",
            "node_modules",
            "\"$TMPDIR/x\"",
            "\"${BUILD_DIR:?}/out\"",
            "~/.cache/pip",
            "/tmp/x",
            "../other/build",
            "$X/bob",
            "/opt/app/releases/1",
            "build/../dist",
        ] {
            assert!(fine(w), "{w}: {:?}", judged(w, Some(""), None));
        }
        // With the project's path known, a directory above it is protected.
        assert!(judged("..", Some("/w/p"), Some("/w/p")).is_some());
        assert!(judged("../q", Some("/w/p"), Some("/w/p")).is_none());
        // After a `cd` somewhere not known, an entry is fine, everything is not.
        assert!(judged("build", None, None).is_none());
        assert!(judged("*", None, None).is_some());
    }
}
