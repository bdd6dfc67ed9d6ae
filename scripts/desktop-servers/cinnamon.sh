# Cinnamon 5.6 (Debian 12), or 6.4 with --debian13, whose shell is its own notification server, as window manager and
# shell on the session's Xvfb display, with Mesa's software GL: sourced by
# scripts/desktop-session --server cinnamon. Its banners are Clutter actors inside the shell:
# the probe beside this file (evaluated through org.Cinnamon.Eval once the shell serves) reads
# them for Tests/TestSupport/Rigs/Cinnamon.swift.
server_tools=(cinnamon gsettings)
server_host_tools=(xdotool import)
server_display=1

prepare_server() {
    # Settings in a key file rather than dconf (no dconf service on this bus): written before the
    # start, read by cinnamon and anything the bus starts for it.
    export GSETTINGS_BACKEND=keyfile
    mkdir -p "$XDG_CONFIG_HOME/glib-2.0/settings"
    # The printers applet fails to load here, and Cinnamon then shows a banner of its own about
    # it. Banners hide after 4 s by default (the notification stays in the panel's list): 60 s
    # here, so that a click on a busy machine still finds its banner.
    local applets
    applets=$(GSETTINGS_BACKEND=memory "${in_desktop[@]}" gsettings get org.cinnamon enabled-applets |
        sed "s/, 'panel1:right:[0-9]*:printers@cinnamon.org'//")
    cat >"$XDG_CONFIG_HOME/glib-2.0/settings/keyfile" <<SETTINGS
[org/cinnamon]
enabled-applets=$applets

[org/cinnamon/desktop/notifications]
notification-duration=60
SETTINGS
    # No gvfs (nor its FUSE mount in XDG_RUNTIME_DIR), no accessibility bus.
    export XDG_CURRENT_DESKTOP=X-Cinnamon GIO_USE_VFS=local GIO_USE_VOLUME_MONITOR=unix GVFS_DISABLE_FUSE=1 \
        LIBGL_ALWAYS_SOFTWARE=1 NO_AT_BRIDGE=1
    # Cinnamon 6.4's window manager refuses to start without a session type it knows.
    export XDG_SESSION_TYPE=x11
}

start_server() {
    "${in_desktop[@]}" cinnamon --replace </dev/null >>"$session_root/logs/cinnamon.log" 2>&1 &
    service_pids+=("$!")
    # About 2 s on an idle machine; minutes on one busy compiling.
    wait_for_bus_name org.freedesktop.Notifications cinnamon 180
    local answer
    answer=$(gdbus call --session --timeout 180 --dest org.Cinnamon --object-path /org/Cinnamon \
        --method org.Cinnamon.Eval "$(cat "$servers_dir/cinnamon/probe.js")" 2>>"$session_root/logs/cinnamon.log")
    [[ $answer == "(true, 'true')" ]] || { printf 'probe: %s\n' "$answer" >>"$session_root/logs/cinnamon.log"; fail_start cinnamon "did not take the probe"; }
}
