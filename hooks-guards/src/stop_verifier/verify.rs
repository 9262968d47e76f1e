//! The verifier: the claims of a reply, and those no successful tool call of the turn
//! substantiates ([`Unverified`]); the compiled rules of a config, cached.
//!
//! # The rules it keeps
//!
//! - The command line of a shell tool is read from its first command key present (a string, or
//!   a list of words joined), and cut at a length.
//! - Compiled rules are cached per rule set, a few at a time.

use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use serde_json::Value;

use super::claims::find_claims;
use super::config::{ClaimRule, StopVerifier};
use super::rules::{Call, Compiled, compile_rule};

/// How much of a command line is kept.
const MAX_COMMAND: usize = 4096;

/// A claim without evidence: what it says, where, and what is missing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unverified {
    /// The rule's name (`tests`).
    pub rule: String,
    /// The claim in words (`tests pass or were run`).
    pub claim: String,
    /// The clause of the reply that makes it.
    pub quote: String,
    /// The evidence it lacks, in words.
    pub missing: String,
}

impl StopVerifier {
    /// The claims of `reply`, each as (rule name, the clause that makes it), in the order of
    /// the rules; one per rule at most.
    ///
    /// ```
    /// use hookchain::guards::StopVerifier;
    ///
    /// let v = StopVerifier::default();
    /// let claims = v.claims("I updated `src/lib.rs` and pushed it. I haven't run the tests.").unwrap();
    /// let rules: Vec<&str> = claims.iter().map(|(rule, _)| rule.as_str()).collect();
    /// assert_eq!(rules, ["files", "publish"]);
    /// assert!(v.claims("Next I will write the file; you should run the tests.").unwrap().is_empty());
    /// ```
    pub fn claims(&self, reply: &str) -> Result<Vec<(String, String)>, String> {
        let rules = self.compiled()?;
        Ok(find_claims(reply, &rules)
            .into_iter()
            .map(|(i, quote)| (rules[i].name.clone(), quote))
            .collect())
    }

    /// The claims of `reply` that no call of `calls` substantiates: `calls` are the turn's
    /// successful tool calls as (tool name, args).
    pub fn unverified_by(
        &self,
        reply: &str,
        calls: &[(&str, &Value)],
    ) -> Result<Vec<Unverified>, String> {
        let calls: Vec<Call> = calls
            .iter()
            .map(|(tool, args)| Call {
                tool: (*tool).to_owned(),
                command: self.command_of(tool, args),
            })
            .collect();
        self.unverified(reply, &calls)
    }

    pub(super) fn unverified(
        &self,
        reply: &str,
        calls: &[Call],
    ) -> Result<Vec<Unverified>, String> {
        let rules = self.compiled()?;
        Ok(find_claims(reply, &rules)
            .into_iter()
            .filter(|(i, _)| !calls.iter().any(|c| rules[*i].substantiated_by(c)))
            .map(|(i, quote)| Unverified {
                rule: rules[i].name.clone(),
                claim: rules[i].claim.clone(),
                quote,
                missing: format!("no {}", rules[i].evidence),
            })
            .collect())
    }

    /// The command line of a call of a shell tool: the first of `command_keys` in its args (a
    /// string, or a list of words), capped.
    pub(super) fn command_of(&self, tool: &str, args: &Value) -> Option<String> {
        if !self.shell_tools.iter().any(|t| t == tool) {
            return None;
        }
        let value = self
            .command_keys
            .iter()
            .find_map(|k| args.get(k))
            .unwrap_or(args);
        let mut line = match value {
            Value::String(s) => s.clone(),
            Value::Array(words) => words
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
            _ => return None,
        };
        if line.len() > MAX_COMMAND {
            let mut end = MAX_COMMAND;
            while !line.is_char_boundary(end) {
                end -= 1;
            }
            line.truncate(end);
        }
        Some(line)
    }

    /// Every rule with its fields settled (a built-in rule's left-out fields are the
    /// built-in's) and its expressions compiled: once per list of rules (the last few lists
    /// are kept), since compiling them costs far more than reading a reply.
    fn compiled(&self) -> Result<Arc<Vec<Compiled>>, String> {
        type Cache = Mutex<Vec<(Vec<ClaimRule>, Arc<Vec<Compiled>>)>>;
        static CACHE: LazyLock<Cache> = LazyLock::new(Cache::default);
        const KEPT: usize = 8;
        let cached = |cache: &Cache| {
            let cache = cache.lock().unwrap_or_else(PoisonError::into_inner);
            cache
                .iter()
                .find(|(rules, _)| *rules == self.rules)
                .map(|(_, compiled)| compiled.clone())
        };
        if let Some(compiled) = cached(&CACHE) {
            return Ok(compiled);
        }
        let compiled = Arc::new(
            self.rules
                .iter()
                .map(compile_rule)
                .collect::<Result<Vec<_>, _>>()?,
        );
        let mut cache = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= KEPT {
            cache.remove(0);
        }
        cache.push((self.rules.clone(), compiled.clone()));
        Ok(compiled)
    }
}

#[cfg(test)]
mod tests {
    use super::super::claims::CUES;
    use super::*;
    use regex::Regex;

    #[test]
    fn the_built_in_expressions_compile() {
        let rules = StopVerifier::default().compiled().unwrap();
        assert_eq!(rules.len(), 3);
        assert!(Regex::new(CUES).is_ok());
    }
}
