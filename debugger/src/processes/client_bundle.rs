//! The Python client, shipped inside the server: a launched process can `import breakroom`
//! (and `PYTHONBREAKPOINT=breakroom.set_trace` works) without installing anything.

use std::path::{Path, PathBuf};

/// The package's files, compiled in so the binary is all there is to install. A test below
/// fails when a module of the package is missing here.
const FILES: &[(&str, &str)] = &[
    ("__init__.py", include_str!("../../../client/breakroom/__init__.py")),
    ("__main__.py", include_str!("../../../client/breakroom/__main__.py")),
    ("_attach.py", include_str!("../../../client/breakroom/_attach.py")),
    ("_breakpoint_channel.py", include_str!("../../../client/breakroom/_breakpoint_channel.py")),
    ("_breakpoint_kinds.py", include_str!("../../../client/breakroom/_breakpoint_kinds.py")),
    ("_call.py", include_str!("../../../client/breakroom/_call.py")),
    ("_capture.py", include_str!("../../../client/breakroom/_capture.py")),
    ("_checkpoints.py", include_str!("../../../client/breakroom/_checkpoints.py")),
    ("_children.py", include_str!("../../../client/breakroom/_children.py")),
    ("_client.py", include_str!("../../../client/breakroom/_client.py")),
    ("_complete.py", include_str!("../../../client/breakroom/_complete.py")),
    ("_completion_snippet.py", include_str!("../../../client/breakroom/_completion_snippet.py")),
    ("_frames.py", include_str!("../../../client/breakroom/_frames.py")),
    ("_interrupt.py", include_str!("../../../client/breakroom/_interrupt.py")),
    ("_labels.py", include_str!("../../../client/breakroom/_labels.py")),
    ("_line_breakpoints.py", include_str!("../../../client/breakroom/_line_breakpoints.py")),
    ("_line_monitoring.py", include_str!("../../../client/breakroom/_line_monitoring.py")),
    ("_line_rewrite.py", include_str!("../../../client/breakroom/_line_rewrite.py")),
    ("_offthread.py", include_str!("../../../client/breakroom/_offthread.py")),
    ("_pause.py", include_str!("../../../client/breakroom/_pause.py")),
    ("_read_only.py", include_str!("../../../client/breakroom/_read_only.py")),
    ("_reconnect.py", include_str!("../../../client/breakroom/_reconnect.py")),
    ("_repl.py", include_str!("../../../client/breakroom/_repl.py")),
    ("_running_frames.py", include_str!("../../../client/breakroom/_running_frames.py")),
    ("_serialize.py", include_str!("../../../client/breakroom/_serialize.py")),
    ("_servers.py", include_str!("../../../client/breakroom/_servers.py")),
    ("_snapshot_sender.py", include_str!("../../../client/breakroom/_snapshot_sender.py")),
    ("_snapshots.py", include_str!("../../../client/breakroom/_snapshots.py")),
    ("_static_read.py", include_str!("../../../client/breakroom/_static_read.py")),
    ("_stepping.py", include_str!("../../../client/breakroom/_stepping.py")),
    ("_transport.py", include_str!("../../../client/breakroom/_transport.py")),
    ("_uncaught_errors.py", include_str!("../../../client/breakroom/_uncaught_errors.py")),
    ("_variables.py", include_str!("../../../client/breakroom/_variables.py")),
];

/// The child hook (issue 33), beside the package: on `PYTHONPATH`, Python imports it at start.
const SITECUSTOMIZE: &str = include_str!("../../../client/sitecustomize.py");

/// Writes the package to `{dir}/breakroom/` (rewritten at every start, so an upgraded server
/// ships its own client) and returns `dir`, the entry for `PYTHONPATH`.
pub fn install(dir: &Path) -> std::io::Result<PathBuf> {
    let package = dir.join("breakroom");
    create_private_dir(&package)?;
    for (name, text) in FILES {
        std::fs::write(package.join(name), text)?;
    }
    std::fs::write(dir.join("sitecustomize.py"), SITECUSTOMIZE)?;
    Ok(dir.to_path_buf())
}

/// Writes the package to `{dir}/breakroom/` readable by every user and writable by none but
/// this server's: for a process of another user that root attaches to (issue 33).
pub fn install_readable(dir: &Path) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    let package = dir.join("breakroom");
    std::fs::DirBuilder::new().recursive(true).mode(0o755).create(&package)?;
    for path in [dir, package.as_path()] {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))?;
    }
    for (name, text) in FILES {
        let file = package.join(name);
        std::fs::write(&file, text)?;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644))?;
    }
    let hook = dir.join("sitecustomize.py");
    std::fs::write(&hook, SITECUSTOMIZE)?;
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644))?;
    Ok(dir.to_path_buf())
}

/// Where the client goes when the server keeps nothing on disk: a directory of this server's
/// own, readable only by its user (code other users could change must not be imported).
pub fn private_temp_dir() -> PathBuf {
    std::env::temp_dir().join(format!("breakroom-client-{}", std::process::id()))
}

fn create_private_dir(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(path)
}

#[cfg(test)]
mod tests {
    use super::FILES;

    #[test]
    fn every_module_of_the_client_package_is_shipped() {
        let package = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../client/breakroom");
        let mut on_disk: Vec<String> = std::fs::read_dir(&package)
            .expect("client/breakroom")
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .filter(|name| name.ends_with(".py"))
            .collect();
        on_disk.sort();
        let shipped: Vec<String> = FILES.iter().map(|(name, _)| name.to_string()).collect();
        assert_eq!(shipped, on_disk, "add the new module to FILES");
    }
}
