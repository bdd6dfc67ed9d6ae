# mate-notification-daemon 1.26 (Debian 12, and 1.26 again with --debian13), MATE's notification
# server, on the session's Xvfb display: sourced by scripts/desktop-session --server
# mate-notification-daemon. Debian 13 keeps the program under /usr/libexec.
mate_notification_daemon=/usr/lib/mate-notification-daemon/mate-notification-daemon
((desktop_release == 13)) && mate_notification_daemon=/usr/libexec/mate-notification-daemon/mate-notification-daemon
server_tools=("$mate_notification_daemon")
server_host_tools=(xdotool import)
server_display=1
server_service=org.freedesktop.mate.Notifications.service

prepare_server() {
    ln -s /usr/share/dbus-1/services/org.a11y.Bus.service "$XDG_DATA_HOME/dbus-1/services/"
    export XDG_CURRENT_DESKTOP=MATE GIO_USE_VFS=local
}

start_server() {
    "${in_desktop[@]}" "$mate_notification_daemon" </dev/null >>"$session_root/logs/mate-notification-daemon.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications mate-notification-daemon
}
