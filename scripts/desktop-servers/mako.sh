# mako 1.7 on sway 1.7 (Debian 12), or mako 1.10 on sway 1.10 with --debian13, the Wayland
# notification server, on a headless sway of the session's own: sourced by scripts/desktop-session
# --server mako. No X display: sway draws on a virtual output (wlroots' headless backend, pixman
# renderer, no input devices), grim (this machine's) takes its screenshots, and mako's
# notifications are read through its bus interface and acted on with its own makoctl (mako draws
# no buttons).
#
# sway 1.7 refuses to run as root ("Unable to drop root"), so it runs as nobody, in a runtime
# directory of its own inside the session's (the session's directory is then made traversable,
# its contents staying 0700), and root's clients (mako, grim, makoctl) reach it through an
# absolute WAYLAND_DISPLAY.
server_tools=(mako makoctl sway swaymsg setpriv)
server_host_tools=(grim)
server_display=0
server_service=fr.emersion.mako.service

prepare_server() {
    # An empty config: mako's defaults (no expiry, actions through makoctl), and none of the
    # caller's own ~/.config/mako.
    mkdir -p "$XDG_CONFIG_HOME/mako"
    : >"$XDG_CONFIG_HOME/mako/config"
    export XDG_CURRENT_DESKTOP=sway XDG_SESSION_TYPE=wayland
}

start_compositor() {
    local sway_dir=$session_root/sway waited=0 ipc socket
    chmod 711 "$session_root"
    mkdir -m 700 "$sway_dir"
    printf 'output HEADLESS-1 resolution 1280x800\nxwayland disable\n' >"$sway_dir/config"
    chown -R nobody:nogroup "$sway_dir"
    # Its environment from scratch (none of root's), PRIVATE_DESKTOP_SESSION kept so that
    # whatever it starts is found and stopped with the session.
    env -i PATH=/usr/bin:/bin HOME="$sway_dir" XDG_RUNTIME_DIR="$sway_dir" PRIVATE_DESKTOP_SESSION="$session_root" \
        WLR_BACKENDS=headless WLR_LIBINPUT_NO_DEVICES=1 WLR_RENDERER=pixman \
        "${in_desktop[@]}" setpriv --reuid=nobody --regid=nogroup --clear-groups sway -c "$sway_dir/config" \
        </dev/null >>"$session_root/logs/sway.log" 2>&1 &
    service_pids+=("$!")
    # sway announces nothing. Its IPC answering is the sign that its event loop runs: a SIGTERM
    # before that (between its socket's creation and wl_display_run) is lost, and its stop would
    # wait the whole grace. A script may poll.
    until ipc=$(compgen -G "$sway_dir/sway-ipc.*.sock" | head -1) && "${in_desktop[@]}" swaymsg -s "$ipc" -t get_version >/dev/null 2>&1; do
        kill -0 "${service_pids[-1]}" 2>/dev/null || fail_start sway "exited before it served"
        ((waited++ < startup_timeout_seconds * 20)) || fail_start sway "did not serve within ${startup_timeout_seconds}s"
        sleep 0.05
    done
    socket=$(compgen -G "$sway_dir/wayland-[0-9]" | head -1)
    [[ -S $socket ]] || fail_start sway "serves no Wayland socket"
    export WAYLAND_DISPLAY=$socket
    # mako activated by the bus draws on it too.
    dbus-update-activation-environment WAYLAND_DISPLAY XDG_CURRENT_DESKTOP 2>>"$session_root/logs/dbus-daemon.log" ||
        fail_start dbus-daemon "did not accept WAYLAND_DISPLAY for activated services"
}

start_server() {
    "${in_desktop[@]}" mako </dev/null >>"$session_root/logs/mako.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications mako
}
