# dunst (1.9 on Debian 12, 1.12 with --debian13) on the session's Xvfb display: sourced by
# scripts/desktop-session --server dunst.
server_tools=(dunst)
server_display=1

prepare_server() { :; }

start_server() {
    "${in_desktop[@]}" dunst </dev/null >>"$session_root/logs/dunst.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications dunst
}
