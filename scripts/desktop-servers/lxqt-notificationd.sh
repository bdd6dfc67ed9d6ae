# lxqt-notificationd 1.2 (Debian 12), or 2.1 with --debian13, LXQt's notification server, on the
# session's Xvfb display: sourced by scripts/desktop-session --server lxqt-notificationd.
server_tools=(lxqt-notificationd)
server_host_tools=(xdotool import)
server_display=1
server_service=

prepare_server() {
    ln -s /usr/share/dbus-1/services/org.a11y.Bus.service "$XDG_DATA_HOME/dbus-1/services/"
    export XDG_CURRENT_DESKTOP=LXQt QT_QPA_PLATFORM=xcb QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1
}

start_server() {
    "${in_desktop[@]}" lxqt-notificationd </dev/null >>"$session_root/logs/lxqt-notificationd.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications lxqt-notificationd
}
