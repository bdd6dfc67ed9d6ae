# swaync (SwayNotificationCenter: 0.7.3 on sway 1.7, Debian 12; 0.11 on sway 1.10 with
# --debian13), on a headless sway of the session's own (headless-sway): sourced by
# scripts/desktop-session --server swaync.
# shellcheck source=headless-sway
source "$servers_dir/headless-sway"
server_tools=(swaync swaync-client "${sway_tools[@]}")
server_host_tools=(grim)
server_display=0
server_service=org.erikreider.swaync.service

prepare_server() {
    # A config of its own, none of the caller's ~/.config/swaync: no expiry (a popup stays until
    # it is acted on), no scripts (the packaged config runs an example one on every notification),
    # and inline replies on (0.8 and later show the field only when the config asks; 0.7 has none).
    ln -s /usr/share/dbus-1/services/org.a11y.Bus.service "$XDG_DATA_HOME/dbus-1/services/"
    mkdir -p "$XDG_CONFIG_HOME/swaync"
    cat >"$XDG_CONFIG_HOME/swaync/config.json" <<'JSON'
{
  "positionX": "right",
  "positionY": "top",
  "timeout": 0,
  "timeout-low": 0,
  "timeout-critical": 0,
  "scripts": {},
  "notification-inline-replies": true
}
JSON
    prepare_sway
}

start_server() {
    "${in_desktop[@]}" swaync </dev/null >>"$session_root/logs/swaync.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications swaync
}
