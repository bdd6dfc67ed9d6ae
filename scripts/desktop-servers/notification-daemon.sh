# notification-daemon 3.20 (Debian 12, and 3.20 again with --debian13), GNOME Flashback's
# notification server, on the session's Xvfb display: sourced by scripts/desktop-session --server
# notification-daemon. Its bubbles are GTK windows, read and pressed over AT-SPI (on-screen beside
# this file).
notification_daemon=/usr/lib/notification-daemon/notification-daemon
server_tools=("$notification_daemon")
server_host_tools=(xdotool import)
server_display=1

prepare_server() {
    ln -s /usr/share/dbus-1/services/org.a11y.Bus.service "$XDG_DATA_HOME/dbus-1/services/"
    export XDG_CURRENT_DESKTOP=GNOME-Flashback:GNOME
}

start_server() {
    "${in_desktop[@]}" "$notification_daemon" </dev/null >>"$session_root/logs/notification-daemon.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications notification-daemon
}
