"""The translations: po/gbnotify.pot is what the sources give, every catalog po/LINGUAS lists
compiles with `msgfmt --check`, is complete, keeps each message's placeholders, and picks the
plural forms its language's rule asks for. (That the programs speak them is tested on the real
programs: Tests/gbnotifyctlTests/TranslationTests.swift, Tests/DaemonTests/TranslationDaemonTests.swift.)
"""

import gettext
import re
import subprocess
import tempfile
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PO = REPO / "po"
PLACEHOLDER = re.compile(r"\{([A-Za-z][A-Za-z0-9_]*)\}")


def languages():
    return [line.strip() for line in (PO / "LINGUAS").read_text().splitlines() if line.strip() and not line.startswith("#")]


def entries(path):
    """The messages of a .po or .pot file: {(context, msgid): {"plural": ..., "msgstr": [...], "fuzzy": bool}}."""
    found, entry, field = {}, None, None

    def finish():
        if entry is not None and entry.get("msgid"):
            found[(entry.get("msgctxt"), entry["msgid"])] = entry

    for line in path.read_text(encoding="utf-8").splitlines() + [""]:
        if not line.strip():
            finish()
            entry, field = None, None
            continue
        if entry is None:
            entry = {"msgstr": {}, "fuzzy": False}
        if line.startswith("#,") and "fuzzy" in line:
            entry["fuzzy"] = True
        if line.startswith("#"):
            continue
        match = re.match(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?) (".*")$', line)
        if match:
            keyword, index, text = match.groups()
            field = ("msgstr", int(index or 0)) if keyword.startswith("msgstr") else (keyword, None)
            value = ""
        else:
            text = line.strip()
        value = eval(text)  # a C-quoted string of one line: the PO format's own quoting
        if field[0] == "msgstr":
            entry["msgstr"][field[1]] = entry["msgstr"].get(field[1], "") + value
        else:
            entry[field[0]] = entry.get(field[0], "") + value
    return found


class Template(unittest.TestCase):
    def test_the_checked_in_template_is_what_the_sources_give(self):
        result = subprocess.run([REPO / "scripts/extract-messages", "--check"], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_the_template_holds_every_call_in_the_sources(self):
        calls = 0
        for path in (REPO / "Sources").rglob("*.swift"):
            code = re.sub(r"//[^\n]*", "", path.read_text(encoding="utf-8"))
            calls += len(re.findall(r"\bLocalized\.(?:text|plural)\(", code))
        template = entries(PO / "gbnotify.pot")
        self.assertGreater(calls, 0)
        # Calls of one message in several places are one entry: never more entries than calls.
        self.assertLessEqual(len(template), calls)
        self.assertGreater(len(template), calls // 2)


class Catalogs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.template = entries(PO / "gbnotify.pot")
        cls.compiled = Path(tempfile.mkdtemp(prefix="gbnotify-locale-"))
        subprocess.run([REPO / "scripts/compile-catalogs", cls.compiled], check=True)

    def test_linguas_lists_german_and_french_and_each_has_its_catalog(self):
        self.assertEqual(set(languages()) & {"de", "fr"}, {"de", "fr"})
        for language in languages():
            self.assertTrue((PO / f"{language}.po").is_file(), language)

    def test_msgfmt_check_passes_and_every_message_is_translated(self):
        for language in languages():
            result = subprocess.run(
                ["msgfmt", "--check", "--statistics", "-o", "/dev/null", PO / f"{language}.po"],
                capture_output=True, text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"})
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertRegex(result.stderr, r"^\d+ translated messages\.\n$", language)

    def test_every_catalog_has_exactly_the_templates_messages_none_fuzzy(self):
        for language in languages():
            catalog = entries(PO / f"{language}.po")
            self.assertEqual(set(catalog), set(self.template), language)
            self.assertEqual([key for key, entry in catalog.items() if entry["fuzzy"]], [], language)
            for key, entry in catalog.items():
                self.assertEqual(entry.get("msgid_plural"), self.template[key].get("msgid_plural"), (language, key))

    def test_every_translation_keeps_the_placeholders_of_its_message(self):
        for language in languages():
            for (context, msgid), entry in entries(PO / f"{language}.po").items():
                source = set(PLACEHOLDER.findall(msgid + entry.get("msgid_plural", "")))
                for index, text in entry["msgstr"].items():
                    found = set(PLACEHOLDER.findall(text))
                    # A singular may say "one" instead of {count}; every other placeholder stays.
                    self.assertEqual(found | {"count"}, source | {"count"}, (language, msgid, index, text))
                    self.assertTrue(text.strip(), (language, msgid, index))

    def test_plural_forms_for_1_2_and_5(self):
        expected = {
            # German: one form for 1, the other for everything else.
            "de": {1: "{count} Warnung", 2: "{count} Warnungen", 5: "{count} Warnungen", 0: "{count} Warnungen"},
            # French: the singular for 0 and 1.
            "fr": {1: "{count} avertissement", 2: "{count} avertissements", 5: "{count} avertissements", 0: "{count} avertissement"},
        }
        for language, forms in expected.items():
            with open(self.compiled / language / "LC_MESSAGES/gbnotify.mo", "rb") as catalog:
                translations = gettext.GNUTranslations(catalog)
            for count, form in forms.items():
                self.assertEqual(translations.ngettext("{count} warning", "{count} warnings", count), form, (language, count))


class SessionLanguage(unittest.TestCase):
    def test_the_user_unit_takes_the_locale_from_the_user_manager(self):
        # The desktop session imports LANG and LANGUAGE into the user manager; the unit must not
        # set, unset or filter them.
        unit = (REPO / "systemd-user/gbnotifyd.service").read_text()
        # (Other variables may be set: the unit unsets SWIFT_BACKTRACE, for one.)
        settings = [
            line for line in unit.splitlines()
            if re.match(r"\s*(EnvironmentFile|PassEnvironment)=", line)
            or (re.match(r"\s*(Environment|UnsetEnvironment)=", line) and re.search(r"\b(LANG|LANGUAGE|LC_[A-Z]+)\b", line))
        ]
        self.assertEqual(settings, [])


if __name__ == "__main__":
    unittest.main()
