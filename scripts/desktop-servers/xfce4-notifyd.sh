# xfce4-notifyd 0.7 (Debian 12), Xfce's notification server, on the session's Xvfb display:
# sourced by scripts/desktop-session --server xfce4-notifyd. Its bubbles are GTK windows, read
# and pressed over AT-SPI (on-screen beside this file); it reads its settings from xfconfd.
xfce4_notifyd=$(printf %s /usr/lib/*/xfce4/notifyd/xfce4-notifyd)
server_tools=("$xfce4_notifyd" xdotool import)
server_display=1

prepare_server() {
    local service
    for service in org.a11y.Bus org.xfce.Xfconf; do
        ln -s "/usr/share/dbus-1/services/$service.service" "$XDG_DATA_HOME/dbus-1/services/"
    done
    export XDG_CURRENT_DESKTOP=XFCE
}

start_server() {
    "$xfce4_notifyd" </dev/null >>"$session_root/logs/xfce4-notifyd.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications xfce4-notifyd
}
