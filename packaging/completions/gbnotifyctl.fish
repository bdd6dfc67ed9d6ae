# fish completion for gbnotifyctl. Account names are not completed: listing them reads the
# keyring, which may ask to be unlocked, and a Tab key must never pop up a prompt.

set -l commands account relay status show inbox test open deliver doctor mute unmute watch mutes read rules snooze
set -l account_commands add import list remove
set -l relay_commands login logout
set -l rules_commands check

complete -c gbnotifyctl -f
complete -c gbnotifyctl -s h -l help -d 'Show the help'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -l version -d 'Print the version'

complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a account -d 'Add, import, list and remove gitbay accounts'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a relay -d 'Store or delete the access token of a relay'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a status -d 'Show what the running gbnotifyd is doing'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a show -d 'Show an issue, merge request or build'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a inbox -d 'Show the unread inbox'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a test -d 'Show a sample notification'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a open -d 'Open an item or the inbox'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a deliver -d 'Hand a push payload on standard input to gbnotifyd'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a doctor -d 'Check everything gbnotifyd needs'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a mute -d "Mute a repository on the account's server"
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a unmute -d 'Undo a mute'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a watch -d 'Watch a repository'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a mutes -d 'List the repositories muted with gbnotify'
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a read -d "Mark an account's notices read"
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a rules -d "Check the config's rules"
complete -c gbnotifyctl -n "not __fish_seen_subcommand_from $commands" -a snooze -d 'Hold popups for a while'

complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and not __fish_seen_subcommand_from $account_commands" -a add -d 'Add an account, or replace its token'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and not __fish_seen_subcommand_from $account_commands" -a import -d "Add every instance of the gitbay CLI's config"
complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and not __fish_seen_subcommand_from $account_commands" -a list -d 'List the accounts'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and not __fish_seen_subcommand_from $account_commands" -a remove -d 'Deregister and delete an account'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and __fish_seen_subcommand_from add" -l ssh -d 'Mint the token over SSH with your key'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and __fish_seen_subcommand_from add" -l token-name -x -d 'With --ssh: the token name on the server'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and __fish_seen_subcommand_from add" -l allow-http -d 'Allow plain http:// for another host'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and __fish_seen_subcommand_from import" -l url -x -d 'NAME=URL: the web address of an instance'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and __fish_seen_subcommand_from list" -l json -d 'Print JSON'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from account; and __fish_seen_subcommand_from remove" -l user -x -d "With a URL: the account's user"

complete -c gbnotifyctl -n "__fish_seen_subcommand_from status doctor show inbox" -l json -d 'Print JSON'

complete -c gbnotifyctl -n "__fish_seen_subcommand_from relay; and not __fish_seen_subcommand_from $relay_commands" -a login -d 'Store the access token for a relay'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from relay; and not __fish_seen_subcommand_from $relay_commands" -a logout -d 'Delete the access token for a relay'

complete -c gbnotifyctl -n "__fish_seen_subcommand_from rules; and not __fish_seen_subcommand_from $rules_commands" -a check -d 'Which rule each newest notice matches'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from check" -l rows -x -d "How many of each account's newest notices"
complete -c gbnotifyctl -n "__fish_seen_subcommand_from read" -l all -d 'Every unread notice of the account'
complete -c gbnotifyctl -n "__fish_seen_subcommand_from snooze" -l account -x -d 'Snooze this account only'
