#!/usr/bin/env bash
# The do-it-yourself gitbay notifier that gbnotify is measured against: what a user without
# gbnotify would write. Every INTERVAL seconds it polls each account's unread inbox with curl
# (with If-None-Match, so most answers are an empty 304, as gbnotifyd's are) and shows each
# notice newer than the last one it saw with notify-send. The first poll of an account only
# notes where the inbox stands.
#
#   Benchmarks/baseline.sh ACCOUNTS-FILE
#
# ACCOUNTS-FILE has one account a line: INSTANCE-URL USER. The tokens come from the keyring,
# as gbnotifyd's do (secret-tool, schema org.gitbay.Account), and reach curl in a header file
# of mode 0600, never on its command line. INTERVAL (default 30) is the pause between rounds;
# CYCLES, when set, stops it after that many rounds (the benchmark uses it to measure whole
# rounds; a user would leave it unset). CA_FILE, when set, is the CA curl trusts (`--cacert`),
# as gbnotifyd's `ca-file` is.
set -u

accounts_file=${1:?usage: baseline.sh ACCOUNTS-FILE}
interval=${INTERVAL:-30}
cycles=${CYCLES:-0}
trust=()
[[ -n ${CA_FILE:-} ]] && trust=(--cacert "$CA_FILE")

work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
umask 077

urls=() etags=() marks=()
index=0
while read -r url user; do
    [[ -n $url ]] || continue
    token=$(secret-tool lookup xdg:schema org.gitbay.Account instance "$url" user "$user") || {
        echo "baseline: no token for $user at $url in the keyring" >&2
        exit 1
    }
    printf 'Authorization: Bearer %s\n' "$token" >"$work/auth$index"
    urls+=("$url") etags+=("") marks+=("")
    index=$((index + 1))
done <"$accounts_file"

round=0
while :; do
    for i in "${!urls[@]}"; do
        status=$(curl -s "${trust[@]}" -o "$work/body" -D "$work/headers" -w '%{http_code}' \
            -H @"$work/auth$i" -H "If-None-Match: ${etags[i]}" \
            "${urls[i]}/api/v1/read?argv=notifications&argv=list")
        [[ $status == 200 ]] || continue
        etags[i]=$(sed -n 's/^[Ee][Tt][Aa][Gg]: *//p' "$work/headers" | tr -d '\r')
        newest=$(jq '[.data[].id] | max // 0' "$work/body")
        if [[ -n ${marks[i]} ]]; then
            jq -r --argjson mark "${marks[i]}" \
                '.data | sort_by(.id)[] | select(.id > $mark) | [.repo, .actor + " " + .summary] | @tsv' \
                "$work/body" |
                while IFS=$'\t' read -r repo body; do
                    notify-send -a gitbay "$repo" "$body"
                done
        fi
        if [[ -z ${marks[i]} ]] || ((newest > marks[i])); then marks[i]=$newest; fi
    done
    round=$((round + 1))
    ((cycles > 0 && round >= cycles)) && break
    sleep "$interval"
done
