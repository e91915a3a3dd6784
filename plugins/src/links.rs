//! Which plugin link handler takes a clicked URL: `[[link_handlers]]` entries of enabled plugins
//! whose manifest is available and whose platforms include this one, in registry order and, in
//! each plugin, manifest order; the first whose `pattern` (a regular expression, checked when
//! the manifest was read) matches the URL wins.

use crate::compat;
use crate::manifest::LinkHandler;
use crate::registry::{Registry, RegistryEntry};

/// The plugin and handler that take `url`, if any.
pub fn handler_for<'a>(registry: &'a Registry, url: &str) -> Option<(&'a RegistryEntry, &'a LinkHandler)> {
    registry.entries.iter().filter(|e| e.enabled && e.manifest_available()).find_map(|entry| {
        let manifest = &entry.manifest;
        let handler = manifest.link_handlers.iter().find(|h| {
            compat::supported(compat::effective(&h.platforms, &manifest.platforms))
                && regex::Regex::new(&h.pattern).is_ok_and(|re| re.is_match(url))
        })?;
        Some((entry, handler))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Source;

    fn plugin(dir: &std::path::Path, id: &str, patterns: &[&str]) -> RegistryEntry {
        let root = dir.join(id);
        std::fs::create_dir_all(&root).expect("plugin dir");
        let mut text = format!(
            "id = \"{id}\"\nname = \"n\"\nversion = \"0.1.0\"\nmin_herdr_version = \"0.7.0\"\n\
             platforms = [\"linux\", \"macos\"]\n[[actions]]\nid = \"open\"\ntitle = \"Open\"\n\
             contexts = [\"pane\"]\ncommand = [\"true\"]\n"
        );
        for (i, pattern) in patterns.iter().enumerate() {
            text.push_str(&format!(
                "[[link_handlers]]\nid = \"h{i}\"\ntitle = \"t\"\npattern = {pattern:?}\naction = \"open\"\n"
            ));
        }
        std::fs::write(root.join(crate::MANIFEST_FILE), text).expect("manifest");
        let loaded = crate::load_manifest(&root).expect("a valid manifest");
        RegistryEntry::new(loaded, true, Source::default())
    }

    #[test]
    fn the_first_enabled_matching_handler_takes_the_url() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut registry = Registry::load(dir.path()).expect("an empty registry");
        registry.upsert(plugin(dir.path(), "a.issues", &["^https://x\\.org/issues/[0-9]+$", "x\\.org"]));
        registry.upsert(plugin(dir.path(), "b.all", &["^https?://"]));
        let found = |registry: &Registry, url: &str| {
            handler_for(registry, url).map(|(e, h)| format!("{}/{}", e.id(), h.id))
        };

        assert_eq!(found(&registry, "https://x.org/issues/12").as_deref(), Some("a.issues/h0"));
        assert_eq!(found(&registry, "https://x.org/wiki").as_deref(), Some("a.issues/h1"), "manifest order");
        assert_eq!(found(&registry, "http://y.org/").as_deref(), Some("b.all/h0"), "registry order");
        assert_eq!(found(&registry, "mailto:me@y.org"), None);

        registry.get_mut("a.issues").expect("a.issues").enabled = false;
        assert_eq!(
            found(&registry, "https://x.org/issues/12").as_deref(),
            Some("b.all/h0"),
            "a disabled plugin takes none"
        );
    }

    #[test]
    fn a_pattern_that_is_not_a_regular_expression_is_a_manifest_error() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("bad");
        std::fs::create_dir_all(&root).expect("dir");
        let text = "id = \"bad\"\nname = \"n\"\nversion = \"0.1.0\"\nmin_herdr_version = \"0.7.0\"\n\
                    [[actions]]\nid = \"open\"\ntitle = \"Open\"\ncommand = [\"true\"]\n\
                    [[link_handlers]]\nid = \"h\"\ntitle = \"t\"\npattern = \"(unclosed\"\naction = \"open\"\n";
        std::fs::write(root.join(crate::MANIFEST_FILE), text).expect("manifest");
        let error = crate::load_manifest(&root).expect_err("an invalid pattern").to_string();
        assert!(error.contains("link_handlers[0].pattern"), "{error}");
    }
}
