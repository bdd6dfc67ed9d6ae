"""Packaging tests: `make install` and `make uninstall`, the systemd unit, the D-Bus activation
file, the desktop entries, man pages, shell completions and the Debian package.

The release build is the slow part (minutes on two cores), so it happens once: setUpModule runs
`make deb`, which builds in a copy of the tree under build/deb, and the install tests then run
`make install` in that same copy, where the release binaries are already built.
"""

import os
import re
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VERSION = re.search(r'version = "([^"]+)"', (REPO / "Sources/Core/PushCore/Text/Version.swift").read_text()).group(1)
DEB_SOURCE = REPO / "build/deb" / f"gbnotify-{VERSION}"
DEB = REPO / "build/deb" / f"gbnotify_{VERSION}_{subprocess.run(['dpkg', '--print-architecture'], capture_output=True, text=True).stdout.strip()}.deb"

# Every file `make install PREFIX=/usr/local` lays out, relative to DESTDIR.
LOCAL_INSTALL = {
    "usr/local/bin/gbnotifyd",
    "usr/local/bin/gbnotifyctl",
    "usr/local/lib/systemd/user/gbnotifyd.service",
    "usr/local/share/dbus-1/services/org.gitbay.Notify1.service",
    "usr/local/share/applications/gbnotify.desktop",
    "etc/xdg/autostart/gbnotifyd.desktop",
    "usr/local/share/icons/hicolor/scalable/apps/gbnotify.svg",
    "usr/local/share/man/man1/gbnotifyd.1",
    "usr/local/share/man/man1/gbnotifyctl.1",
    "usr/local/share/man/man5/gbnotifyd.conf.5",
    "usr/local/share/bash-completion/completions/gbnotifyctl",
    "usr/local/share/zsh/site-functions/_gbnotifyctl",
    "usr/local/share/fish/vendor_completions.d/gbnotifyctl.fish",
    "usr/local/share/licenses/gbnotify/LICENSE",
    "usr/local/share/locale/de/LC_MESSAGES/gbnotify.mo",
    "usr/local/share/locale/fr/LC_MESSAGES/gbnotify.mo",
}

# Every file the .deb holds, where Debian and freedesktop expect it.
DEB_FILES = {
    "usr/bin/gbnotifyd",
    "usr/bin/gbnotifyctl",
    "usr/lib/systemd/user/gbnotifyd.service",
    "usr/share/dbus-1/services/org.gitbay.Notify1.service",
    "usr/share/applications/gbnotify.desktop",
    "etc/xdg/autostart/gbnotifyd.desktop",
    "usr/share/icons/hicolor/scalable/apps/gbnotify.svg",
    "usr/share/man/man1/gbnotifyd.1.gz",
    "usr/share/man/man1/gbnotifyctl.1.gz",
    "usr/share/man/man5/gbnotifyd.conf.5.gz",
    "usr/share/bash-completion/completions/gbnotifyctl",
    "usr/share/zsh/vendor-completions/_gbnotifyctl",
    "usr/share/fish/vendor_completions.d/gbnotifyctl.fish",
    "usr/share/doc/gbnotify/changelog.gz",
    "usr/share/doc/gbnotify/copyright",
    "usr/share/locale/de/LC_MESSAGES/gbnotify.mo",
    "usr/share/locale/fr/LC_MESSAGES/gbnotify.mo",
}

EXECUTABLES = {"gbnotifyd", "gbnotifyctl"}


def run(argv, *, cwd=None, env=None, check=True):
    """Runs argv, and on failure raises an error that shows what it printed."""
    result = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise AssertionError(
            f"{' '.join(map(str, argv))} exited with {result.returncode}\n"
            f"--- stdout (end) ---\n{result.stdout[-4000:]}\n--- stderr (end) ---\n{result.stderr[-4000:]}")
    return result


def files_under(root):
    """The regular files and symlinks under root, relative to it."""
    return {str(path.relative_to(root)) for path in Path(root).rglob("*") if path.is_file() or path.is_symlink()}


def mit_permission_text():
    """LICENSE from "Permission is hereby granted" on: the words debian/copyright must carry."""
    text = (REPO / "LICENSE").read_text()
    return text[text.index("Permission is hereby granted"):].strip()


def licence_paragraph(copyright, name):
    """The text of debian/copyright's stand-alone `License: name` paragraph, its DEP-5
    continuation lines unfolded (a lone "." is an empty line)."""
    paragraph = copyright.split(f"\n\nLicense: {name}\n", 1)[1].split("\n\n", 1)[0]
    lines = [line[1:] for line in paragraph.splitlines()]
    return "\n".join("" if line == "." else line for line in lines).strip()


def help_commands(binary, *words):
    """The command names in the 'Commands:' table of `binary words... --help`; empty for a
    command without subcommands."""
    text = run([binary, *words, "--help"]).stdout
    if "\nCommands:\n" not in text:
        return set()
    table = text.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    return {line.split()[0] for line in table.splitlines() if line.strip()}


def command_tree(binary):
    """gbnotifyctl's commands as its --help tells them: {command: {subcommand, ...}}."""
    return {command: help_commands(binary, command) for command in help_commands(binary)}


def setUpModule():
    run(["make", "deb"], cwd=REPO)


class Unit(unittest.TestCase):
    """The systemd unit and the D-Bus activation file, installed under a real prefix so that
    ExecStart resolves."""

    @classmethod
    def setUpClass(cls):
        cls.prefix = Path(tempfile.mkdtemp(prefix="gbnotify-prefix-"))
        run(["make", "install", f"PREFIX={cls.prefix}", f"SYSCONFDIR={cls.prefix}/etc"], cwd=DEB_SOURCE)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.prefix)

    def test_systemd_analyze_verify_passes_without_a_word(self):
        runtime = tempfile.mkdtemp(prefix="gbnotify-runtime-")
        self.addCleanup(shutil.rmtree, runtime)
        unit = self.prefix / "lib/systemd/user/gbnotifyd.service"
        # The unit among systemd's own targets and slices only: other packages' user units are
        # loaded with the graphical session's target, and two of them claiming one bus name
        # (mako's and swaync's, both installed for the tests) fail the check whatever ours says.
        units = Path(tempfile.mkdtemp(prefix="gbnotify-units-"))
        self.addCleanup(shutil.rmtree, units)
        for own in [*Path("/usr/lib/systemd/user").glob("*.target"), *Path("/usr/lib/systemd/user").glob("*.slice"), unit]:
            (units / own.name).symlink_to(own)
        # MANPATH lets the check of Documentation=man:... find the installed pages.
        env = dict(os.environ, XDG_RUNTIME_DIR=runtime, MANPATH=str(self.prefix / "share/man"), SYSTEMD_UNIT_PATH=str(units))
        result = run(["systemd-analyze", "verify", "--user", str(unit)], env=env, check=False)
        self.assertEqual((result.returncode, result.stdout + result.stderr), (0, ""), "systemd-analyze verify --user")

    def test_unit_and_activation_file_name_the_installed_daemon(self):
        daemon = self.prefix / "bin/gbnotifyd"
        unit = (self.prefix / "lib/systemd/user/gbnotifyd.service").read_text()
        self.assertIn(f"\nExecStart={daemon}\n", unit)
        for line in ["Type=notify", "BusName=org.gitbay.Notify1", "Restart=on-failure", "WatchdogSec=90s", "WatchdogSignal=SIGKILL", "UnsetEnvironment=SWIFT_BACKTRACE", "NoNewPrivileges=yes", "LimitCORE=0",
                     "PartOf=graphical-session.target", "After=graphical-session.target",
                     "WantedBy=graphical-session.target"]:
            self.assertIn(f"\n{line}\n", unit)
        activation = (self.prefix / "share/dbus-1/services/org.gitbay.Notify1.service").read_text()
        self.assertIn("\n[D-BUS Service]\nName=org.gitbay.Notify1\n", activation)
        self.assertIn(f"\nExec={daemon}\n", activation)
        self.assertIn("\nSystemdService=gbnotifyd.service\n", activation)
        self.assertNotIn("@bindir@", unit + activation)

    def test_desktop_entries_are_valid_and_autostart_yields_to_systemd(self):
        autostart = self.prefix / "etc/xdg/autostart/gbnotifyd.desktop"
        launcher = self.prefix / "share/applications/gbnotify.desktop"
        result = run(["desktop-file-validate", str(autostart), str(launcher)], check=False)
        self.assertEqual((result.returncode, result.stdout + result.stderr), (0, ""), "desktop-file-validate")
        entry = autostart.read_text()
        for line in ["Exec=gbnotifyd --unless-running", "X-systemd-skip=true", "X-GNOME-HiddenUnderSystemd=true"]:
            self.assertIn(f"\n{line}\n", entry)


class InstallLayout(unittest.TestCase):
    def test_install_lays_out_exactly_the_expected_files_and_uninstall_removes_them(self):
        destdir = Path(tempfile.mkdtemp(prefix="gbnotify-destdir-"))
        self.addCleanup(shutil.rmtree, destdir)
        run(["make", "install", "PREFIX=/usr/local", f"DESTDIR={destdir}"], cwd=DEB_SOURCE)
        self.assertEqual(files_under(destdir), LOCAL_INSTALL)
        for path in LOCAL_INSTALL:
            mode = (destdir / path).stat().st_mode & 0o777
            self.assertEqual(mode, 0o755 if path.startswith("usr/local/bin/") else 0o644, path)
        self.assertEqual(run([destdir / "usr/local/bin/gbnotifyd", "--version"]).stdout, f"gbnotifyd {VERSION}\n")
        # The installed program finds its catalogs beside its bin, with no variable to say where.
        german = run(
            [destdir / "usr/local/bin/gbnotifyctl", "status"], check=False,
            env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "LANGUAGE": "de", "DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent"})
        self.assertTrue(german.stderr.startswith("gbnotifyctl: Der Sitzungsbus ist nicht erreichbar"), german.stderr)

        run(["make", "uninstall", "PREFIX=/usr/local", f"DESTDIR={destdir}"], cwd=DEB_SOURCE)
        self.assertEqual(files_under(destdir), set())


class ManPages(unittest.TestCase):
    PAGES = ["gbnotifyd.1", "gbnotifyctl.1", "gbnotifyd.conf.5"]

    def test_pages_render_without_warnings(self):
        for page in self.PAGES:
            path = REPO / "packaging/man" / page
            groff = run(["groff", "-ww", "-man", "-z", str(path)], check=False)
            self.assertEqual((groff.returncode, groff.stderr), (0, ""), f"groff -ww on {page}")
            man = run(["man", "--warnings", "-l", "-Tutf8", str(path)], check=False)
            self.assertEqual((man.returncode, man.stderr), (0, ""), f"man -l {page}")
            # grotty's overstrike bold, undone.
            self.assertIn("\nNAME\n", re.sub(".\x08", "", man.stdout))

    def test_gbnotifyctl_page_describes_every_command(self):
        page = (REPO / "packaging/man/gbnotifyctl.1").read_text()
        for command, subcommands in command_tree(DEB_SOURCE / ".build/release/gbnotifyctl").items():
            for words in [f"{command} {subcommand}" for subcommand in subcommands] or [command]:
                self.assertIn(f".B gbnotifyctl {words}\n", page, f"'{words}' in the synopsis")

    def test_gbnotifyd_page_describes_every_option(self):
        page = (REPO / "packaging/man/gbnotifyd.1").read_text()
        help_text = run([DEB_SOURCE / ".build/release/gbnotifyd", "--help"]).stdout
        for option in set(re.findall(r"^  (--[a-z-]+)", help_text, re.MULTILINE)):
            self.assertIn(option.replace("-", "\\-"), page, option)

    def test_config_page_describes_every_key(self):
        # The daemon lists the keys of the top (or of a section) when it meets one it does not
        # know there, before it needs a bus.
        config = Path(tempfile.mkdtemp(prefix="gbnotify-config-"))
        self.addCleanup(shutil.rmtree, config)

        def keys(text, listed):
            (config / "config").write_text(text + "no-such-key = 1\n")
            result = run([DEB_SOURCE / ".build/release/gbnotifyd", "--config", config / "config"], check=False)
            self.assertEqual(result.returncode, 1)
            return re.search(rf"{listed} (.*)$", result.stderr, re.MULTILINE).group(1).split(", ")

        top = keys("", "the keys are")
        rule = keys("[rule x]\n", "its keys are")
        account = keys("[account cmc@gitbay.org]\n", "its keys are")
        self.assertIn("poll-interval", top)
        self.assertIn("quiet-hours", top)
        self.assertIn("actor", rule)
        self.assertIn("enabled", account)
        page = (REPO / "packaging/man/gbnotifyd.conf.5").read_text()
        for key in top + rule + account:
            in_roff = re.escape(key.replace("-", "\\-"))
            self.assertRegex(page, rf'\n\.B[IR]? "{in_roff} = ', key)
        for section in ('.BI "[rule " name ]', '.BI "[account " user @ host ]'):
            self.assertIn(section, page)


class Completions(unittest.TestCase):
    COMPLETIONS = REPO / "packaging/completions"

    @classmethod
    def setUpClass(cls):
        cls.tree = command_tree(DEB_SOURCE / ".build/release/gbnotifyctl")

    def bash_complete(self, *words):
        """What Tab offers after `gbnotifyctl words...`, the last word being the one completed."""
        script = f"""
            source /usr/share/bash-completion/bash_completion
            source {self.COMPLETIONS / 'gbnotifyctl.bash'}
            complete -p gbnotifyctl >&2
            COMP_WORDS=(gbnotifyctl {' '.join(f"'{w}'" for w in words)})
            COMP_CWORD=$(( ${{#COMP_WORDS[@]}} - 1 ))
            COMP_LINE="${{COMP_WORDS[*]}}"
            COMP_POINT=${{#COMP_LINE}}
            _gbnotifyctl gbnotifyctl "${{COMP_WORDS[-1]}}" "${{COMP_WORDS[-2]}}"
            printf '%s\\n' "${{COMPREPLY[@]}}"
        """
        result = run(["bash", "--norc", "--noprofile", "-c", script])
        self.assertEqual(result.stderr, "complete -F _gbnotifyctl gbnotifyctl\n")
        return {word for word in result.stdout.splitlines() if word}

    def test_bash_completes_commands_subcommands_and_options(self):
        self.assertEqual(self.bash_complete("") - {"--help", "--version"}, set(self.tree))
        self.assertEqual(self.bash_complete("st"), {"status"})
        for command, subcommands in self.tree.items():
            if subcommands:
                self.assertEqual(self.bash_complete(command, "") - {"--help"}, subcommands, command)
        self.assertEqual(self.bash_complete("account", "add", "--"), {"--ssh", "--token-name", "--allow-http", "--help"})
        self.assertEqual(self.bash_complete("account", "import", "--"), {"--url", "--help"})
        self.assertEqual(self.bash_complete("status", "--j"), {"--json"})

    def test_fish_completes_commands_and_subcommands(self):
        script = self.COMPLETIONS / "gbnotifyctl.fish"
        run(["fish", "--no-execute", str(script)])

        def complete(line):
            result = run(["fish", "--no-config", "-c", f"source {script}; complete -C '{line}'"])
            return {row.split("\t")[0] for row in result.stdout.splitlines()}

        self.assertEqual(complete("gbnotifyctl "), set(self.tree))
        for command, subcommands in self.tree.items():
            if subcommands:
                self.assertEqual(complete(f"gbnotifyctl {command} "), subcommands, command)
        self.assertIn("--allow-http", complete("gbnotifyctl account add --"))
        self.assertIn("--ssh", complete("gbnotifyctl account add --"))
        self.assertIn("--token-name", complete("gbnotifyctl account add --"))
        self.assertEqual(complete("gbnotifyctl account import --"), {"--url", "--help"})

    def test_zsh_completion_parses_and_names_every_command(self):
        script = self.COMPLETIONS / "_gbnotifyctl"
        run(["zsh", "-n", str(script)])
        text = script.read_text()
        self.assertTrue(text.startswith("#compdef gbnotifyctl\n"))
        for command in set(self.tree).union(*self.tree.values()):
            self.assertIn(f"'{command}:", text, command)


class DebianPackage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = Path(tempfile.mkdtemp(prefix="gbnotify-root-"))
        run(["dpkg", "-x", DEB, cls.root])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def test_package_version_is_the_programs(self):
        self.assertEqual(run(["dpkg-deb", "--field", DEB, "Version"]).stdout.strip(), VERSION)

    def test_lintian_reports_no_errors_or_warnings(self):
        result = run(["lintian", "--tag-display-limit", "0", DEB], check=False)
        # Informational tags remain: hardening-no-fortify-functions (Swift code calls none of
        # libc's fortifiable functions) and spelling-error-in-binary (string fragments in the
        # statically linked Swift runtime).
        complaints = [line for line in result.stdout.splitlines() if line.startswith(("E:", "W:"))]
        self.assertEqual(complaints, [], result.stdout)

    def test_lintian_raises_no_copyright_tag(self):
        result = run(["lintian", "--tag-display-limit", "0", "--display-info", DEB], check=False)
        tags = [line for line in result.stdout.splitlines() if "copyright" in line or "license" in line]
        self.assertEqual(tags, [], result.stdout)

    def test_the_package_carries_the_mit_licence_of_the_tree(self):
        copyright = (self.root / "usr/share/doc/gbnotify/copyright").read_text()
        self.assertEqual(copyright, (REPO / "packaging/debian/copyright").read_text())
        self.assertEqual(licence_paragraph(copyright, "Expat"), mit_permission_text())

    def test_depends_on_the_c_libraries_and_no_swift_runtime(self):
        depends = run(["dpkg-deb", "--field", DEB, "Depends"]).stdout
        # Debian 13 renamed the libraries whose interface has time_t in it, for its 64-bit time:
        # libcurl4t64, libglib2.0-0t64.
        for library in ["libdbus-1-3", "libsecret-1-0", "libglib2.0-0", "libcurl4", "libc6"]:
            self.assertRegex(depends, rf"(^|, ){re.escape(library)}(t64)?( |,|$)", library)
        self.assertNotIn("swift", depends)
        for name in EXECUTABLES:
            needed = run(["readelf", "--dynamic", self.root / "usr/bin" / name]).stdout
            self.assertNotIn("libswift", needed, name)
            self.assertNotIn("libFoundation", needed, name)

    def test_binaries_are_hardened_as_debian_asks(self):
        # Read from the binaries, whichever linker made them: relocations read-only after
        # start-up (a GNU_RELRO segment), every symbol bound at start-up so that all of them can
        # be (BIND_NOW), and a position-independent executable (PIE).
        for name in EXECUTABLES:
            binary = self.root / "usr/bin" / name
            segments = run(["readelf", "--program-headers", "--wide", binary]).stdout
            self.assertRegex(segments, r"(?m)^\s*GNU_RELRO\s", name)
            dynamic = run(["readelf", "--dynamic", "--wide", binary]).stdout
            self.assertRegex(dynamic, r"(?m)\(FLAGS\)\s.*\bBIND_NOW\b", name)
            self.assertRegex(dynamic, r"(?m)\(FLAGS_1\)\s.*\bPIE\b", name)

    def test_extracts_every_file_where_debian_and_freedesktop_expect_it(self):
        self.assertEqual(files_under(self.root), DEB_FILES)

    def test_extracted_binaries_run(self):
        # Outside /opt/swift's reach: nothing but Debian's libraries to load.
        env = {"PATH": "/usr/bin:/bin", "LD_LIBRARY_PATH": ""}
        for name in EXECUTABLES:
            result = run([self.root / "usr/bin" / name, "--version"], env=env)
            self.assertEqual(result.stdout, f"{name} {VERSION}\n")
            ldd = run(["ldd", self.root / "usr/bin" / name]).stdout
            self.assertNotIn("not found", ldd, name)


if __name__ == "__main__":
    unittest.main()
