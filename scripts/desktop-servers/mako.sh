# mako 1.7 on sway 1.7 (Debian 12), or mako 1.10 on sway 1.10 with --debian13, the Wayland
# notification server, on a headless sway of the session's own (headless-sway): sourced by
# scripts/desktop-session --server mako. mako's notifications are read through its bus interface
# and acted on with its own makoctl (mako draws no buttons).
# shellcheck source=headless-sway
source "$servers_dir/headless-sway"
server_tools=(mako makoctl "${sway_tools[@]}")
server_host_tools=(grim)
server_display=0
server_service=fr.emersion.mako.service

prepare_server() {
    # An empty config: mako's defaults (no expiry, actions through makoctl), and none of the
    # caller's own ~/.config/mako.
    mkdir -p "$XDG_CONFIG_HOME/mako"
    : >"$XDG_CONFIG_HOME/mako/config"
    prepare_sway
}

start_server() {
    "${in_desktop[@]}" mako </dev/null >>"$session_root/logs/mako.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications mako
}
