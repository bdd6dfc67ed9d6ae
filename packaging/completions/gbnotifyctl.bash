# bash completion for gbnotifyctl. Account names are not completed: listing them reads the
# keyring, which may ask to be unlocked, and a Tab key must never pop up a prompt.

_gbnotifyctl() {
    local cur prev words cword
    _init_completion || return

    local command="" subcommand="" i
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
            -*) ;;
            *)
                if [[ -z $command ]]; then
                    command=${words[i]}
                elif [[ $command == account || $command == relay || $command == rules ]] && [[ -z $subcommand ]]; then
                    subcommand=${words[i]}
                fi
                ;;
        esac
    done

    case $prev in
        --user | --account | --rows) return ;;
    esac

    local words_to_offer
    case $command in
        "") words_to_offer="account relay status show inbox test open deliver doctor mute unmute watch mutes read rules snooze --help --version" ;;
        account)
            case $subcommand in
                "") words_to_offer="add import list remove --help" ;;
                add) words_to_offer="--ssh --token-name --allow-http --help" ;;
                import) words_to_offer="--url --help" ;;
                list) words_to_offer="--json --help" ;;
                remove) words_to_offer="--user --help" ;;
            esac
            ;;
        relay)
            case $subcommand in
                "") words_to_offer="login logout --help" ;;
                *) words_to_offer="--help" ;;
            esac
            ;;
        rules)
            case $subcommand in
                "") words_to_offer="check --help" ;;
                check) words_to_offer="--rows --help" ;;
            esac
            ;;
        status | doctor | show | inbox) words_to_offer="--json --help" ;;
        read) words_to_offer="--all --help" ;;
        snooze) words_to_offer="--account --help" ;;
        test | open | deliver | mute | unmute | watch | mutes) words_to_offer="--help" ;;
    esac
    # After a command, only options: its other arguments are URLs, accounts, paths and lengths.
    [[ $cur == -* || -z $command || (($command == account || $command == relay || $command == rules) && -z $subcommand) ]] || return
    mapfile -t COMPREPLY < <(compgen -W "$words_to_offer" -- "$cur")
}

complete -F _gbnotifyctl gbnotifyctl
