//! What the guards' tests share: a registry from a `hookchain.yaml` text, a listener of
//! notifications.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};

use hookchain::config::{Config, ConfigBuilderExt};
use hookchain::points::{Notification, Notify};
use hookchain::{HookContext, HookOptions, Hooks, HooksBuilder};

/// A registry built from `yaml`, read as `./hookchain.yaml`.
pub fn from_yaml(yaml: &str) -> Result<Hooks, String> {
    let config = Config::from_yaml_str(yaml, "./hookchain.yaml").map_err(|e| e.to_string())?;
    Hooks::builder()
        .config(config)
        .build()
        .map_err(|e| e.to_string())
}

/// The error of a registry built from `yaml`, read as `./hookchain.yaml`.
pub fn yaml_error(yaml: &str) -> String {
    match from_yaml(yaml) {
        Ok(_) => panic!("the config is accepted:\n{yaml}"),
        Err(error) => error,
    }
}

/// `builder` with a `notification` hook that keeps every notification fired.
pub fn listening(builder: HooksBuilder) -> (HooksBuilder, Arc<Mutex<Vec<Notification>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let builder = builder.hook_with(
        Notify,
        HookOptions::new("listener"),
        move |n: &Notification, _: &HookContext| log.lock().unwrap().push(n.clone()),
    );
    (builder, seen)
}
