/// What `gbnotifyctl doctor` says about what the user set up: the accounts, the config and the
/// terminal a click opens (the session it runs in: `DoctorSessionFindings.swift`).
extension DoctorFinding {
    // MARK: - Accounts

    public static func secretService(holding accounts: Int) -> DoctorFinding {
        DoctorFinding(
            secretServiceCheck, .ok,
            Localized.plural(
                "present and unlocked, holding {count} gitbay account", "present and unlocked, holding {count} gitbay accounts", count: accounts,
                note: "gbnotifyctl doctor, about the Secret Service (the keyring)."))
    }

    /// The check's name, as the Secret Service's findings here and in gbnotifyctl name it.
    public static var secretServiceCheck: String {
        Localized.text("Secret Service", note: "gbnotifyctl doctor: the name of a check. Use the desktops' own name for the Secret Service, if they translate it.")
    }

    /// A keyring item of the account schema that is not a usable account, described without its secret.
    public static func skipped(keyringItem description: String) -> DoctorFinding {
        DoctorFinding(
            Localized.text("keyring item", note: "gbnotifyctl doctor: the name of a check."), .warning, description,
            fix: Localized.text(
                "correct or delete the item (Passwords and Keys), or add the account again with gbnotifyctl account add URL",
                note: "gbnotifyctl doctor: what to do. Passwords and Keys is GNOME's program (seahorse): use its name in your language; the command stays as it is."))
    }

    public static var noAccounts: DoctorFinding {
        DoctorFinding(
            Localized.text("accounts", note: "gbnotifyctl doctor: the name of a check."), .warning,
            Localized.text("no gitbay account in the keyring, so there is nothing to notify about", note: "gbnotifyctl doctor."),
            fix: "gbnotifyctl account add URL")
    }

    /// The check's name for one account, `account cmc@gitbay.org`.
    public static func accountCheck(_ name: String) -> String {
        Localized.text("account {account}", note: "gbnotifyctl doctor: the name of a check. {account}: user@host.", ["account": name])
    }

    /// How `whoami` went for `account`.
    public static func account(_ account: Account, whoami result: APIResult) -> DoctorFinding {
        let check = accountCheck(account.displayName)
        let url = account.instance.url
        let newToken = ReadProblem.newToken(for: account)
        switch result {
        case .success:
            guard let whoami = try? result.decode(Whoami.self) else {
                return DoctorFinding(
                    check, .failure,
                    Localized.text(
                        "{url} answered whoami with something that is not a gitbay reply",
                        note: "gbnotifyctl doctor. {url}: the instance's address; whoami is the API call and stays as it is.", ["url": url]),
                    fix: Localized.text("check that {url} is a gitbay instance", note: "gbnotifyctl doctor: what to do. {url}: the instance's address.", ["url": url]))
            }
            guard whoami.username == account.username else {
                return DoctorFinding(
                    check, .failure,
                    Localized.text(
                        "the token belongs to {owner}, not {user}", note: "gbnotifyctl doctor. {owner}: the user the token belongs to; {user}: the account's user.",
                        ["owner": whoami.username.displaySafe(truncatedTo: 40), "user": account.username]),
                    fix: newToken)
            }
            return DoctorFinding(
                check, .ok,
                Localized.text("{url} is reachable and the token is valid", note: "gbnotifyctl doctor. {url}: the instance's address.", ["url": url]))
        case .unauthorized(let message):
            return DoctorFinding(
                check, .failure,
                Localized.text(
                    "{url} rejected the token (HTTP 401: {message})",
                    note: "gbnotifyctl doctor. {url}: the instance's address; {message}: the instance's own words, in English.", ["url": url, "message": message]),
                fix: newToken)
        case .notFound:
            return DoctorFinding(
                check, .failure,
                Localized.text("no gitbay API at {url} (HTTP 404)", note: "gbnotifyctl doctor. {url}: the instance's address.", ["url": url]),
                fix: Localized.text(
                    "check the URL's path prefix, or ask the instance's admin to set [api] enabled = true",
                    note: "gbnotifyctl doctor: what to do. \"[api] enabled = true\" is the instance's setting and stays as it is."))
        case .rateLimited, .busy, .tooManyWrites:
            return DoctorFinding(
                check, .warning,
                Localized.text(
                    "{url} is reachable but did not check the token: {answer}",
                    note: "gbnotifyctl doctor. {url}: the instance's address; {answer}: what it answered, in English.", ["url": url, "answer": "\(result)"]),
                fix: Localized.text(
                    "nothing to do: gbnotifyd waits and retries; run doctor again later to check the token", note: "gbnotifyctl doctor: what to do."))
        default:
            return DoctorFinding(
                check, .failure,
                Localized.text(
                    "{url} failed to answer whoami: {answer}",
                    note: "gbnotifyctl doctor. {url}: the instance's address; {answer}: what went wrong, in English; whoami is the API call and stays as it is.",
                    ["url": url, "answer": "\(result)"]),
                fix: Localized.text("try again later; if it goes on, tell the instance's admin", note: "gbnotifyctl doctor: what to do."))
        }
    }

    /// An account on plain http to another machine, which gbnotifyd does not poll unless the
    /// config says `allow-http = true`; doctor does not send its token there either.
    public static func account(_ account: Account, plainHTTPRefusedBy configPath: String) -> DoctorFinding {
        let refused = ReadProblem.plainHTTPRefused(account, configPath: configPath)
        return DoctorFinding(
            accountCheck(account.displayName), .failure,
            Localized.text("not polled: {reason}", note: "gbnotifyctl doctor, about an account. {reason}: why its token is not sent.", ["reason": refused.detail]),
            fix: refused.fix)
    }

    /// `whoami` got no answer at all: the network, TLS or a timeout.
    public static func account(_ account: Account, unreachable reason: String) -> DoctorFinding {
        DoctorFinding(
            accountCheck(account.displayName), .failure,
            Localized.text(
                "cannot reach {url}: {reason}", note: "gbnotifyctl doctor. {url}: the instance's address; {reason}: what went wrong, in English.",
                ["url": account.instance.url, "reason": reason]),
            fix: Localized.text(
                "check the network, the instance URL, proxy settings and the config's ca-file",
                note: "gbnotifyctl doctor: what to do. ca-file is the config key and stays as it is."))
    }

    /// How `whoami` over SSH went for an account whose token gbnotify minted there: the host
    /// must still answer with the key, or `account remove` cannot revoke the token. Polling
    /// needs none of it, so a failure is a warning.
    public static func mintingHost(_ account: Account, _ remote: SSHRemote, whoami: SSHWhoami) -> DoctorFinding {
        let check = mintingHostCheck(account, remote)
        guard whoami.username == account.username else {
            return DoctorFinding(
                check, .warning,
                Localized.text(
                    "your SSH key there belongs to {owner}, not {user}",
                    note: "gbnotifyctl doctor. {owner}: the user the key belongs to; {user}: the account's user.",
                    ["owner": whoami.username.displaySafe(truncatedTo: 40), "user": account.username]),
                fix: Localized.text(
                    "account remove cannot revoke this account's token with it; use the key the token was minted with",
                    note: "gbnotifyctl doctor: what to do. \"account remove\" is the command and stays as it is."))
        }
        guard whoami.keyScope == "full" else {
            return DoctorFinding(
                check, .warning,
                Localized.text(
                    "answers with your key, but the key's scope is {scope}", note: "gbnotifyctl doctor. {scope}: the instance's word for it (as read), in English.",
                    ["scope": whoami.keyScope.displaySafe(truncatedTo: 20)]),
                fix: Localized.text(
                    "account remove cannot revoke the token with a read-scoped key; give the key full scope on the instance",
                    note: "gbnotifyctl doctor: what to do. \"account remove\" is the command and stays as it is."))
        }
        return DoctorFinding(
            check, .ok, Localized.text("answers with your key, as {user}", note: "gbnotifyctl doctor, about an SSH host. {user}: the account's user.", ["user": account.username]))
    }

    private static func mintingHostCheck(_ account: Account, _ remote: SSHRemote) -> String {
        Localized.text(
            "ssh {host} for {account}", note: "gbnotifyctl doctor: the name of a check. {host}: the SSH host; {account}: user@host. ssh stays as it is.",
            ["host": "\(remote)", "account": account.displayName])
    }

    public static func mintingHost(_ account: Account, _ remote: SSHRemote, failure: SSHFailure) -> DoctorFinding {
        DoctorFinding(
            mintingHostCheck(account, remote), .warning, "\(failure)",
            fix: Localized.text(
                "polling works without it, but account remove cannot revoke the token gbnotifyctl minted there until it answers",
                note: "gbnotifyctl doctor: what to do. \"account remove\" is the command and stays as it is."))
    }

    // MARK: - Config

    /// `problem` is nil for a usable config; `exists` tells a file of defaults from none.
    public static func config(path: String, exists: Bool, problem: String?) -> DoctorFinding {
        let check = configCheck
        if let problem {
            return DoctorFinding(
                check, .failure, "\(path): \(problem)",
                fix: Localized.text(
                    "correct it (see gbnotifyd.conf(5)); until then gbnotifyd refuses to start, and a running one keeps the settings it has",
                    note: "gbnotifyctl doctor: what to do about the config file."))
        }
        return DoctorFinding(
            check, .ok,
            exists
                ? Localized.text("{path} is valid", note: "gbnotifyctl doctor. {path}: the config file.", ["path": path])
                : Localized.text(
                    "no file at {path}, so every setting is at its default", note: "gbnotifyctl doctor. {path}: where the config file would be.", ["path": path]))
    }

    private static var configCheck: String {
        Localized.text("config", note: "gbnotifyctl doctor: the name of a check, the config file.")
    }

    public static var noConfigPath: DoctorFinding {
        DoctorFinding(
            configCheck, .failure,
            Localized.text(
                "neither XDG_CONFIG_HOME nor HOME is set, so gbnotifyd has no config file to read", note: "gbnotifyctl doctor. The variables stay as they are."),
            fix: Localized.text(
                "run gbnotifyd and gbnotifyctl in a login session, where HOME is set", note: "gbnotifyctl doctor: what to do. HOME stays as it is."))
    }
}

// MARK: - The terminal

extension DoctorFinding {
    /// The terminal a click starts with `open-with = terminal`, and the command it runs in it.
    /// With `open-with = browser` neither is used: what would fail is only a note.
    public static func terminal(_ config: Config, isInstalled: (String) -> Bool) -> [DoctorFinding] {
        let used = config.openWith == .terminal
        let problem: Verdict = used ? .failure : .note
        let unused = unusedTerminal(used)
        let check = Localized.text("terminal", note: "gbnotifyctl doctor: the name of a check, the terminal a click opens.")
        let terminal: DoctorFinding
        if let words = config.terminal {
            terminal = isInstalled(words[0])
                ? DoctorFinding(check, .ok, "\(words.joined(separator: " "))\(unused)")
                : DoctorFinding(
                    check, problem,
                    Localized.text(
                        "{program} is not installed, so a click opens nothing", note: "gbnotifyctl doctor. {program}: the terminal's program.",
                        ["program": words[0]]) + unused,
                    fix: Localized.text(
                        "install it, or set terminal = ... in the config (for example terminal = kitty -e)",
                        note: "gbnotifyctl doctor: what to do. The config's lines stay as they are."))
        } else if let found = Config.fallbackTerminals.first(where: { isInstalled($0[0]) }) {
            terminal = DoctorFinding(
                check, .ok,
                Localized.text(
                    "{terminal}, the first of xdg-terminal-exec and x-terminal-emulator installed", note: "gbnotifyctl doctor. {terminal}: the terminal's command.",
                    ["terminal": found.joined(separator: " ")]) + unused)
        } else {
            terminal = DoctorFinding(
                check, problem,
                Localized.text(
                    "no terminal is set and neither xdg-terminal-exec nor x-terminal-emulator is installed, so a click opens nothing",
                    note: "gbnotifyctl doctor. The programs' names stay as they are.") + unused,
                fix: Localized.text(
                    "install a terminal emulator (Debian: apt install xterm, or your desktop's own), or set terminal = ... in the config (for example terminal = kitty -e)",
                    note: "gbnotifyctl doctor: what to do. The command and the config's lines stay as they are."))
        }
        return [terminal, terminalCommand(config.terminalCommand, used: used, isInstalled: isInstalled)]
    }

    private static func terminalCommand(_ template: CommandTemplate, used: Bool, isInstalled: (String) -> Bool) -> DoctorFinding {
        let unused = unusedTerminal(used)
        let check = Localized.text("terminal command", note: "gbnotifyctl doctor: the name of a check, the command run in the terminal.")
        let program = template.program
        let command: KeyValuePairs = ["command": template.text]
        if program == CommandTemplate.viewerName {
            return DoctorFinding(
                check, .ok,
                Localized.text(
                    "{command}: gbnotify's own view, read from each notice's own instance (the gbnotifyctl installed beside gbnotifyd)",
                    note: "gbnotifyctl doctor. {command}: the command run in the terminal.", command) + unused)
        }
        let shown = "gbnotifyctl show {account} {path}"
        guard isInstalled(program) else {
            return DoctorFinding(
                check, used ? .failure : .note,
                Localized.text(
                    "{program} (from terminal-command = {command}) is not installed",
                    note: "gbnotifyctl doctor. {program}: the program; {command}: the config's terminal-command (a key that stays as it is).",
                    ["program": program, "command": template.text]) + unused,
                fix: Localized.text(
                    "install it, or remove terminal-command from the config to use {shown}",
                    note: "gbnotifyctl doctor: what to do. {shown}: the command used instead; terminal-command is a config key and stays as it is.",
                    ["shown": shown]))
        }
        if program.split(separator: "/").last == "gitbay" {
            return DoctorFinding(
                check, used ? .warning : .note,
                Localized.text(
                    "{command} runs the gitbay CLI, which reads items from its own default instance whatever account a notice came from, and whose pager closes the terminal at once on a short item",
                    note: "gbnotifyctl doctor. {command}: the command run in the terminal.", command) + unused,
                fix: Localized.text(
                    "remove terminal-command from the config, to use {shown}",
                    note: "gbnotifyctl doctor: what to do. {shown}: the command used instead; terminal-command is a config key and stays as it is.",
                    ["shown": shown]))
        }
        return DoctorFinding(check, .ok, "\(template.text)\(unused)")
    }

    /// What ends a terminal finding when clicks open the browser, so that its failure is only a note.
    private static func unusedTerminal(_ used: Bool) -> String {
        used ? "" : " " + Localized.text("(used only with open-with = terminal)", note: "gbnotifyctl doctor: ends a finding about the terminal. open-with = terminal is the config's line and stays as it is.")
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
