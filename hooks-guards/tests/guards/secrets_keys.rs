//! `secrets` against private keys as the real generators write them: every key type and format
//! `ssh-keygen` and `openssl` produce (OpenSSH, PEM, PKCS#8, encrypted or not) and an armored
//! GnuPG secret key. The fixtures under `tests/fixtures/keys/` were made once, each with the
//! command named on its first line: throwaway keys made for these tests and used nowhere else.
//! Where `ssh-keygen` and `openssl` are on `PATH`, fresh keys are made at run time too, so a
//! rule that happens to accept the fixtures' random bytes cannot hide.

use std::path::Path;
use std::process::Command;

use hookchain_guards::secrets::Secrets;

/// The committed fixtures: (file name, its text).
const FIXTURES: &[(&str, &str)] = &[
    (
        "gpg-ed25519",
        include_str!("../fixtures/keys/gpg-ed25519.txt"),
    ),
    (
        "openssl-dsa",
        include_str!("../fixtures/keys/openssl-dsa.txt"),
    ),
    (
        "openssl-ec-encrypted",
        include_str!("../fixtures/keys/openssl-ec-encrypted.txt"),
    ),
    (
        "openssl-ecparam-genkey",
        include_str!("../fixtures/keys/openssl-ecparam-genkey.txt"),
    ),
    (
        "openssl-genpkey-ec",
        include_str!("../fixtures/keys/openssl-genpkey-ec.txt"),
    ),
    (
        "openssl-genpkey-ed25519",
        include_str!("../fixtures/keys/openssl-genpkey-ed25519.txt"),
    ),
    (
        "openssl-genpkey-ed25519-encrypted",
        include_str!("../fixtures/keys/openssl-genpkey-ed25519-encrypted.txt"),
    ),
    (
        "openssl-genpkey-rsa",
        include_str!("../fixtures/keys/openssl-genpkey-rsa.txt"),
    ),
    (
        "openssl-genpkey-x448",
        include_str!("../fixtures/keys/openssl-genpkey-x448.txt"),
    ),
    (
        "openssl-genrsa",
        include_str!("../fixtures/keys/openssl-genrsa.txt"),
    ),
    (
        "openssl-genrsa-traditional",
        include_str!("../fixtures/keys/openssl-genrsa-traditional.txt"),
    ),
    (
        "openssl-genrsa-traditional-encrypted",
        include_str!("../fixtures/keys/openssl-genrsa-traditional-encrypted.txt"),
    ),
    ("ssh-dsa", include_str!("../fixtures/keys/ssh-dsa.txt")),
    (
        "ssh-dsa-pem",
        include_str!("../fixtures/keys/ssh-dsa-pem.txt"),
    ),
    ("ssh-ecdsa", include_str!("../fixtures/keys/ssh-ecdsa.txt")),
    (
        "ssh-ecdsa-pem",
        include_str!("../fixtures/keys/ssh-ecdsa-pem.txt"),
    ),
    (
        "ssh-ecdsa-pkcs8-passphrase",
        include_str!("../fixtures/keys/ssh-ecdsa-pkcs8-passphrase.txt"),
    ),
    (
        "ssh-ecdsa521-passphrase",
        include_str!("../fixtures/keys/ssh-ecdsa521-passphrase.txt"),
    ),
    (
        "ssh-ed25519",
        include_str!("../fixtures/keys/ssh-ed25519.txt"),
    ),
    (
        "ssh-ed25519-passphrase",
        include_str!("../fixtures/keys/ssh-ed25519-passphrase.txt"),
    ),
    ("ssh-rsa", include_str!("../fixtures/keys/ssh-rsa.txt")),
    (
        "ssh-rsa-pem",
        include_str!("../fixtures/keys/ssh-rsa-pem.txt"),
    ),
    (
        "ssh-rsa-pem-passphrase",
        include_str!("../fixtures/keys/ssh-rsa-pem-passphrase.txt"),
    ),
    (
        "ssh-rsa-pkcs8",
        include_str!("../fixtures/keys/ssh-rsa-pkcs8.txt"),
    ),
];

/// What is wrong with how `guard` treats the private key in `text` (named `name`), as it is
/// and JSON-encoded in a string (a service account file, a tool result): not found, found as
/// something else, or a line of its body left in the masked text. `None` when all is right.
fn check_key(guard: &Secrets, name: &str, text: &str) -> Option<String> {
    // The private key's block (`openssl ecparam -genkey` writes its public parameters first).
    let begin = text.find("-----BEGIN")?;
    let begin = begin + text[begin..].find("PRIVATE KEY")?;
    let begin = text[..begin].rfind("-----BEGIN")?;
    let block = &text[begin..];
    let body: Vec<&str> = block
        .lines()
        .filter(|l| !l.starts_with("-----") && !l.contains(':') && l.len() >= 16)
        .collect();
    if body.is_empty() {
        return Some(format!("{name}: the fixture has no key body"));
    }
    let encoded = serde_json::to_string(block).expect("a string encodes");
    for (form, text) in [("as written", block.to_owned()), ("JSON-encoded", encoded)] {
        let found = guard.scan(&text);
        if !found.iter().any(|f| f.kind == "private key") {
            return Some(format!("{name} ({form}): not found, found {found:?}"));
        }
        let masked = guard.mask(&text).unwrap_or_default();
        if let Some(line) = body.iter().find(|l| masked.contains(*l)) {
            return Some(format!(
                "{name} ({form}): the masked text keeps the body line {line}"
            ));
        }
    }
    None
}

#[test]
fn every_committed_key_from_ssh_keygen_openssl_and_gpg_is_found_and_masked_whole() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/keys");
    let on_disk = std::fs::read_dir(&dir)
        .expect("the fixtures directory")
        .count();
    assert_eq!(on_disk, FIXTURES.len(), "every fixture file is listed here");
    let guard = Secrets::default();
    let wrong: Vec<String> = FIXTURES
        .iter()
        .filter_map(|(name, text)| check_key(&guard, name, text))
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// `program args...` run in `dir`, its success, within the test's bounds (the generators
/// finish in well under a second; a missing program is `false`).
fn run(dir: &Path, program: &str, args: &[&str]) -> bool {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn keys_that_ssh_keygen_and_openssl_make_now_are_found_and_masked_whole() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ssh = [
        ("ed25519", &["-t", "ed25519"][..]),
        (
            "ed25519-passphrase",
            &["-t", "ed25519", "-N", "throwaway"][..],
        ),
        ("rsa", &["-t", "rsa", "-b", "2048"][..]),
        ("ecdsa", &["-t", "ecdsa"][..]),
        ("ecdsa-384", &["-t", "ecdsa", "-b", "384"][..]),
        ("rsa-pem", &["-t", "rsa", "-b", "2048", "-m", "PEM"][..]),
        ("ecdsa-pkcs8", &["-t", "ecdsa", "-m", "PKCS8"][..]),
        (
            "rsa-pem-passphrase",
            &["-t", "rsa", "-b", "2048", "-m", "PEM", "-N", "throwaway"][..],
        ),
    ];
    let openssl: [(&str, &[&str]); 5] = [
        ("genpkey-ed25519", &["genpkey", "-algorithm", "ED25519"]),
        (
            "genpkey-ec",
            &[
                "genpkey",
                "-algorithm",
                "EC",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
            ],
        ),
        (
            "genpkey-ed25519-encrypted",
            &[
                "genpkey",
                "-algorithm",
                "ED25519",
                "-aes-256-cbc",
                "-pass",
                "pass:throwaway",
            ],
        ),
        ("genrsa-traditional", &["genrsa", "-traditional", "2048"]),
        ("ecparam", &["ecparam", "-genkey", "-name", "prime256v1"]),
    ];
    let guard = Secrets::default();
    let mut made = 0;
    let mut wrong = Vec::new();
    for (name, args) in ssh {
        let file = format!("ssh-{name}");
        let mut all = vec!["-q", "-C", "", "-f", file.as_str()];
        if !args.contains(&"-N") {
            all.extend(["-N", ""]);
        }
        all.extend(args);
        if !run(dir.path(), "ssh-keygen", &all) {
            continue;
        }
        made += 1;
        let text = std::fs::read_to_string(dir.path().join(&file)).expect("the key file");
        wrong.extend(check_key(&guard, &file, &text));
    }
    for (name, args) in openssl {
        let file = format!("openssl-{name}");
        let mut all = args.to_vec();
        all.extend(["-out", file.as_str()]);
        if !run(dir.path(), "openssl", &all) {
            continue;
        }
        made += 1;
        let text = std::fs::read_to_string(dir.path().join(&file)).expect("the key file");
        wrong.extend(check_key(&guard, &file, &text));
    }
    println!("keys made at run time: {made} (none where ssh-keygen and openssl are missing)");
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn the_run_of_a_that_opens_every_openssh_key_is_its_header_not_a_placeholder() {
    // `openssh-key-v1\0`, the cipher `none`, the kdf `none`, an empty kdf option string and
    // one key: base64 of those length fields is a run of `A`, in every unencrypted key.
    let key = FIXTURES
        .iter()
        .find(|(name, _)| *name == "ssh-ed25519")
        .map(|(_, text)| *text)
        .expect("the ed25519 fixture");
    assert!(key.contains("b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAA"));
    let found = Secrets::default().scan(key);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].kind, "private key");
    assert_eq!(
        &key[found[0].range.clone()],
        key[key.find("-----BEGIN").unwrap()..].trim_end()
    );
}
