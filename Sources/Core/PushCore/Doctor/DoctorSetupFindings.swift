/// What `gbnotifyctl doctor` says about what the user set up: the accounts, the config and the
/// terminal a click opens (the session it runs in: `DoctorSessionFindings.swift`).
extension DoctorFinding {
    // MARK: - Accounts

    public static func secretService(holding accounts: Int) -> DoctorFinding {
        DoctorFinding(
            "Secret Service", .ok, "present and unlocked, holding \(accounts.counted("gitbay account"))")
    }

    /// A keyring item of the account schema that is not a usable account, described without its secret.
    public static func skipped(keyringItem description: String) -> DoctorFinding {
        DoctorFinding(
            "keyring item", .warning, description,
            fix: "correct or delete the item (Passwords and Keys), or add the account again with gbnotifyctl account add URL")
    }

    public static let noAccounts = DoctorFinding(
        "accounts", .warning, "no gitbay account in the keyring, so there is nothing to notify about",
        fix: "gbnotifyctl account add URL")

    /// How `whoami` went for `account`.
    public static func account(_ account: Account, whoami result: APIResult) -> DoctorFinding {
        let check = "account \(account.displayName)"
        let url = account.instance.url
        let newToken = ReadProblem.newToken(for: account)
        switch result {
        case .success:
            guard let whoami = try? result.decode(Whoami.self) else {
                return DoctorFinding(check, .failure, "\(url) answered whoami with something that is not a gitbay reply",
                                     fix: "check that \(url) is a gitbay instance")
            }
            guard whoami.username == account.username else {
                return DoctorFinding(
                    check, .failure,
                    "the token belongs to \(whoami.username.displaySafe(truncatedTo: 40)), not \(account.username)",
                    fix: newToken)
            }
            return DoctorFinding(check, .ok, "\(url) is reachable and the token is valid")
        case .unauthorized(let message):
            return DoctorFinding(check, .failure, "\(url) rejected the token (HTTP 401: \(message))", fix: newToken)
        case .notFound:
            return DoctorFinding(
                check, .failure, "no gitbay API at \(url) (HTTP 404)",
                fix: "check the URL's path prefix, or ask the instance's admin to set [api] enabled = true")
        case .rateLimited, .busy, .tooManyWrites:
            return DoctorFinding(
                check, .warning, "\(url) is reachable but did not check the token: \(result)",
                fix: "nothing to do: gbnotifyd waits and retries; run doctor again later to check the token")
        default:
            return DoctorFinding(
                check, .failure, "\(url) failed to answer whoami: \(result)",
                fix: "try again later; if it goes on, tell the instance's admin")
        }
    }

    /// An account on plain http to another machine, which gbnotifyd does not poll unless the
    /// config says `allow-http = true`; doctor does not send its token there either.
    public static func account(_ account: Account, plainHTTPRefusedBy configPath: String) -> DoctorFinding {
        DoctorFinding(
            "account \(account.displayName)", .failure,
            "not polled: \(account.instance.url) is plain http to another machine, which would send the API token readable by anyone on the way",
            fix: "add the account again with its https URL, or set allow-http = true in \(configPath)")
    }

    /// `whoami` got no answer at all: the network, TLS or a timeout.
    public static func account(_ account: Account, unreachable reason: String) -> DoctorFinding {
        DoctorFinding(
            "account \(account.displayName)", .failure, "cannot reach \(account.instance.url): \(reason)",
            fix: "check the network, the instance URL, proxy settings and the config's ca-file")
    }

    /// How `whoami` over SSH went for an account whose token gbnotify minted there: the host
    /// must still answer with the key, or `account remove` cannot revoke the token. Polling
    /// needs none of it, so a failure is a warning.
    public static func mintingHost(_ account: Account, _ remote: SSHRemote, whoami: SSHWhoami) -> DoctorFinding {
        let check = "ssh \(remote) for \(account.displayName)"
        guard whoami.username == account.username else {
            return DoctorFinding(
                check, .warning, "your SSH key there belongs to \(whoami.username.displaySafe(truncatedTo: 40)), not \(account.username)",
                fix: "account remove cannot revoke this account's token with it; use the key the token was minted with")
        }
        guard whoami.keyScope == "full" else {
            return DoctorFinding(
                check, .warning, "answers with your key, but the key's scope is \(whoami.keyScope.displaySafe(truncatedTo: 20))",
                fix: "account remove cannot revoke the token with a read-scoped key; give the key full scope on the instance")
        }
        return DoctorFinding(check, .ok, "answers with your key, as \(account.username)")
    }

    public static func mintingHost(_ account: Account, _ remote: SSHRemote, failure: SSHFailure) -> DoctorFinding {
        DoctorFinding(
            "ssh \(remote) for \(account.displayName)", .warning, "\(failure)",
            fix: "polling works without it, but account remove cannot revoke the token gbnotifyctl minted there until it answers")
    }

    // MARK: - Config

    /// `problem` is nil for a usable config; `exists` tells a file of defaults from none.
    public static func config(path: String, exists: Bool, problem: String?) -> DoctorFinding {
        if let problem {
            return DoctorFinding(
                "config", .failure, "\(path): \(problem)",
                fix: """
                    correct it (see gbnotifyd.conf(5)); until then gbnotifyd refuses to start, and a \
                    running one keeps the settings it has
                    """)
        }
        return DoctorFinding("config", .ok, exists ? "\(path) is valid" : "no file at \(path), so every setting is at its default")
    }

    public static let noConfigPath = DoctorFinding(
        "config", .failure, "neither XDG_CONFIG_HOME nor HOME is set, so gbnotifyd has no config file to read",
        fix: "run gbnotifyd and gbnotifyctl in a login session, where HOME is set")
}

// MARK: - The terminal

extension DoctorFinding {
    /// The terminal a click starts with `open-with = terminal`, and the command it runs in it.
    /// With `open-with = browser` neither is used: what would fail is only a note.
    public static func terminal(_ config: Config, isInstalled: (String) -> Bool) -> [DoctorFinding] {
        let used = config.openWith == .terminal
        let problem: Verdict = used ? .failure : .note
        let unused = used ? "" : " (used only with open-with = terminal)"
        let configured = "set terminal = ... in the config (for example terminal = kitty -e)"
        let terminal: DoctorFinding
        if let words = config.terminal {
            terminal = isInstalled(words[0])
                ? DoctorFinding("terminal", .ok, "\(words.joined(separator: " "))\(unused)")
                : DoctorFinding(
                    "terminal", problem, "\(words[0]) is not installed, so a click opens nothing\(unused)",
                    fix: "install it, or \(configured)")
        } else if let found = Config.fallbackTerminals.first(where: { isInstalled($0[0]) }) {
            terminal = DoctorFinding("terminal", .ok, "\(found.joined(separator: " ")), the first of xdg-terminal-exec and x-terminal-emulator installed\(unused)")
        } else {
            terminal = DoctorFinding(
                "terminal", problem, "no terminal is set and neither xdg-terminal-exec nor x-terminal-emulator is installed, so a click opens nothing\(unused)",
                fix: "install a terminal emulator (Debian: apt install xterm, or your desktop's own), or \(configured)")
        }
        return [terminal, terminalCommand(config.terminalCommand, used: used, isInstalled: isInstalled)]
    }

    private static func terminalCommand(_ template: CommandTemplate, used: Bool, isInstalled: (String) -> Bool) -> DoctorFinding {
        let unused = used ? "" : " (used only with open-with = terminal)"
        let program = template.program
        if program == CommandTemplate.viewerName {
            return DoctorFinding(
                "terminal command", .ok,
                "\(template.text): gbnotify's own view, read from each notice's own instance (the gbnotifyctl installed beside gbnotifyd)\(unused)")
        }
        guard isInstalled(program) else {
            return DoctorFinding(
                "terminal command", used ? .failure : .note, "\(program) (from terminal-command = \(template.text)) is not installed\(unused)",
                fix: "install it, or remove terminal-command from the config to use gbnotifyctl show {account} {path}")
        }
        if program.split(separator: "/").last == "gitbay" {
            return DoctorFinding(
                "terminal command", used ? .warning : .note,
                """
                \(template.text) runs the gitbay CLI, which reads items from its own default instance whatever \
                account a notice came from, and whose pager closes the terminal at once on a short item\(unused)
                """,
                fix: "remove terminal-command from the config, to use gbnotifyctl show {account} {path}")
        }
        return DoctorFinding("terminal command", .ok, "\(template.text)\(unused)")
    }
}

extension DoctorFinding {
    // MARK: - Language

    /// Which language gbnotify speaks to this session: `catalog` is the `Language:` of the
    /// catalog gettext found (nil: none, so English), `language` the session's `LANGUAGE`,
    /// `messagesLocale` the locale glibc set for messages. glibc ignores `LANGUAGE` while that
    /// locale is C or POSIX, which is what a `LANG` naming a locale that is not installed gives.
    public static func language(catalog: String?, language: String?, messagesLocale: String, requestedLocale: String?) -> DoctorFinding {
        let check = Localized.text("language", note: "gbnotifyctl doctor: the name of the check of the language gbnotify speaks.")
        let settings = Localized.text(
            "LANGUAGE={language}, messages locale {locale}",
            note: "gbnotifyctl doctor: the settings the language comes from. {language}: the LANGUAGE variable; {locale}: glibc's locale for messages (as C.UTF-8).",
            ["language": language ?? "", "locale": messagesLocale])
        if let catalog {
            return DoctorFinding(
                check, .ok,
                Localized.text(
                    "messages in {catalog} ({settings})",
                    note: "gbnotifyctl doctor. {catalog}: the language code of the translation in use (as de); {settings}: the message of that name.",
                    ["catalog": catalog, "settings": settings]))
        }
        let wanted = [language, requestedLocale].compactMap { $0 }.filter { !$0.isEmpty && $0 != "C" && $0 != "POSIX" }
        guard ["C", "POSIX"].contains(messagesLocale), !wanted.isEmpty else {
            return DoctorFinding(
                check, .ok,
                Localized.text(
                    "messages in English ({settings})",
                    note: "gbnotifyctl doctor, when no translation is used. {settings}: the message of that name.", ["settings": settings]))
        }
        return DoctorFinding(
            check, .note,
            Localized.text(
                "messages in English: the locale for messages is C, in which LANGUAGE is not followed ({settings})",
                note: "gbnotifyctl doctor. {settings}: the message of that name.", ["settings": settings]),
            fix: Localized.text(
                "set LANG to an installed locale (locale -a lists them), such as C.UTF-8 or de_DE.UTF-8 after locale-gen",
                note: "gbnotifyctl doctor: what to do when the locale is C. The commands and locale names stay as they are."))
    }
}
