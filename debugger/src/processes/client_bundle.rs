//! The Python client, shipped inside the server: a launched process can `import breakroom`
//! (and `PYTHONBREAKPOINT=breakroom.set_trace` works) without installing anything.

use std::path::{Path, PathBuf};

/// The package's files by their path in the package, compiled in so the binary is all there is
/// to install. A test below fails when a module of the package is missing here.
const FILES: &[(&str, &str)] = &[
    ("__init__.py", include_str!("../../../client/breakroom/__init__.py")),
    ("__main__.py", include_str!("../../../client/breakroom/__main__.py")),
    ("attach.py", include_str!("../../../client/breakroom/attach.py")),
    ("breakpoint_channel.py", include_str!("../../../client/breakroom/breakpoint_channel.py")),
    ("breakpoints/__init__.py", include_str!("../../../client/breakroom/breakpoints/__init__.py")),
    ("breakpoints/kinds.py", include_str!("../../../client/breakroom/breakpoints/kinds.py")),
    ("breakpoints/uncaught.py", include_str!("../../../client/breakroom/breakpoints/uncaught.py")),
    ("children.py", include_str!("../../../client/breakroom/children.py")),
    ("lines/__init__.py", include_str!("../../../client/breakroom/lines/__init__.py")),
    ("lines/engine.py", include_str!("../../../client/breakroom/lines/engine.py")),
    ("lines/interrupt.py", include_str!("../../../client/breakroom/lines/interrupt.py")),
    ("lines/monitoring.py", include_str!("../../../client/breakroom/lines/monitoring.py")),
    ("lines/rewrite.py", include_str!("../../../client/breakroom/lines/rewrite.py")),
    ("lines/running_frames.py", include_str!("../../../client/breakroom/lines/running_frames.py")),
    ("lines/starts.py", include_str!("../../../client/breakroom/lines/starts.py")),
    ("lines/stepping.py", include_str!("../../../client/breakroom/lines/stepping.py")),
    ("pause/__init__.py", include_str!("../../../client/breakroom/pause/__init__.py")),
    ("pause/call.py", include_str!("../../../client/breakroom/pause/call.py")),
    ("pause/client.py", include_str!("../../../client/breakroom/pause/client.py")),
    ("pause/held_tasks.py", include_str!("../../../client/breakroom/pause/held_tasks.py")),
    ("pause/paused_call.py", include_str!("../../../client/breakroom/pause/paused_call.py")),
    ("pause/post_mortem.py", include_str!("../../../client/breakroom/pause/post_mortem.py")),
    ("pause/tasks.py", include_str!("../../../client/breakroom/pause/tasks.py")),
    ("process/__init__.py", include_str!("../../../client/breakroom/process/__init__.py")),
    ("process/current.py", include_str!("../../../client/breakroom/process/current.py")),
    ("process/frames.py", include_str!("../../../client/breakroom/process/frames.py")),
    ("process/kept_threads.py", include_str!("../../../client/breakroom/process/kept_threads.py")),
    ("process/labels.py", include_str!("../../../client/breakroom/process/labels.py")),
    ("process/record.py", include_str!("../../../client/breakroom/process/record.py")),
    ("process/switch_interval.py", include_str!("../../../client/breakroom/process/switch_interval.py")),
    ("protocol/__init__.py", include_str!("../../../client/breakroom/protocol/__init__.py")),
    ("protocol/constants.py", include_str!("../../../client/breakroom/protocol/constants.py")),
    ("protocol/reconnect.py", include_str!("../../../client/breakroom/protocol/reconnect.py")),
    ("protocol/serialize.py", include_str!("../../../client/breakroom/protocol/serialize.py")),
    ("protocol/servers.py", include_str!("../../../client/breakroom/protocol/servers.py")),
    ("protocol/transport.py", include_str!("../../../client/breakroom/protocol/transport.py")),
    ("redaction.py", include_str!("../../../client/breakroom/redaction.py")),
    ("repl/__init__.py", include_str!("../../../client/breakroom/repl/__init__.py")),
    ("repl/bounded.py", include_str!("../../../client/breakroom/repl/bounded.py")),
    ("repl/complete.py", include_str!("../../../client/breakroom/repl/complete.py")),
    ("repl/evaluation.py", include_str!("../../../client/breakroom/repl/evaluation.py")),
    ("repl/png.py", include_str!("../../../client/breakroom/repl/png.py")),
    ("repl/rich.py", include_str!("../../../client/breakroom/repl/rich.py")),
    ("repl/static_read.py", include_str!("../../../client/breakroom/repl/static_read.py")),
    ("repl/variables.py", include_str!("../../../client/breakroom/repl/variables.py")),
    ("snapshots/__init__.py", include_str!("../../../client/breakroom/snapshots/__init__.py")),
    ("snapshots/capture.py", include_str!("../../../client/breakroom/snapshots/capture.py")),
    ("snapshots/gates.py", include_str!("../../../client/breakroom/snapshots/gates.py")),
    ("snapshots/offthread.py", include_str!("../../../client/breakroom/snapshots/offthread.py")),
    ("snapshots/read_only.py", include_str!("../../../client/breakroom/snapshots/read_only.py")),
    ("snapshots/sender.py", include_str!("../../../client/breakroom/snapshots/sender.py")),
    ("snapshots/take.py", include_str!("../../../client/breakroom/snapshots/take.py")),
    ("snapshots/watch.py", include_str!("../../../client/breakroom/snapshots/watch.py")),
    ("time_travel/__init__.py", include_str!("../../../client/breakroom/time_travel/__init__.py")),
    ("time_travel/checkpoints.py", include_str!("../../../client/breakroom/time_travel/checkpoints.py")),
];

/// The child hook (issue 33), beside the package: on `PYTHONPATH`, Python imports it at start.
const SITECUSTOMIZE: &str = include_str!("../../../client/sitecustomize.py");
/// What `sitecustomize.py` imports: the hook itself (issue 53 moved it there, for the `.pth` of
/// an installed client to import too).
const HOOK: &str = include_str!("../../../client/breakroom_hook.py");

/// Writes the package to `{dir}/breakroom/` (rewritten at every start, so an upgraded server
/// ships its own client) and returns `dir`, the entry for `PYTHONPATH`.
pub fn install(dir: &Path) -> std::io::Result<PathBuf> {
    let package = dir.join("breakroom");
    create_private_dir(&package)?;
    for (name, text) in FILES {
        let file = package.join(name);
        if let Some(parent) = file.parent() {
            create_private_dir(parent)?;
        }
        std::fs::write(file, text)?;
    }
    std::fs::write(dir.join("sitecustomize.py"), SITECUSTOMIZE)?;
    std::fs::write(dir.join("breakroom_hook.py"), HOOK)?;
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
        if let Some(parent) = file.parent().filter(|parent| !parent.exists()) {
            std::fs::DirBuilder::new().mode(0o755).create(parent)?;
            std::fs::set_permissions(parent, std::fs::Permissions::from_mode(0o755))?;
        }
        std::fs::write(&file, text)?;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644))?;
    }
    for (name, text) in [("sitecustomize.py", SITECUSTOMIZE), ("breakroom_hook.py", HOOK)] {
        let hook = dir.join(name);
        std::fs::write(&hook, text)?;
        std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o644))?;
    }
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
    use std::path::Path;

    /// Every `.py` file under `dir`, as its path below `root` with `/` between parts.
    fn python_files(root: &Path, dir: &Path, found: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).expect("a directory of the client package") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                python_files(root, &path, found);
            } else if path.extension().is_some_and(|ext| ext == "py") {
                let relative = path.strip_prefix(root).expect("under the package");
                let parts: Vec<String> =
                    relative.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
                found.push(parts.join("/"));
            }
        }
    }

    #[test]
    fn every_module_of_the_client_package_is_shipped() {
        let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("../client/breakroom");
        let mut on_disk = Vec::new();
        python_files(&package, &package, &mut on_disk);
        on_disk.sort();
        let mut shipped: Vec<String> = FILES.iter().map(|(name, _)| name.to_string()).collect();
        shipped.sort();
        assert_eq!(shipped, on_disk, "add the new module to FILES");
    }

    #[test]
    fn the_package_is_written_with_its_subpackages() {
        let dir = std::env::temp_dir().join(format!("breakroom-bundle-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        super::install(&dir).expect("install");
        for (name, text) in FILES {
            assert_eq!(std::fs::read_to_string(dir.join("breakroom").join(name)).expect(name), *text, "{name}");
        }
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
