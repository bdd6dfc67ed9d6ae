# KDE Plasma 5.27 (Debian 12), or 6.3 with --debian13, as the notification server, on the
# session's Xvfb display with kwin_x11: sourced by scripts/desktop-session --server plasma.
# plasmashell itself owns org.freedesktop.Notifications (and com.canonical.Unity, the launcher
# badges).
#
# The probe applet beside this file (plasma/ for 5.27, plasma-6/ for 6) answers the tests with what plasmashell holds (its
# notification model, launcher badges) through two FIFOs in $XDG_RUNTIME_DIR/gbnotify-probe;
# accessibility is on, so that on-screen (AT-SPI) can read and press the popups.
server_tools=(kwin_x11 plasmashell)
server_host_tools=(xdotool import xprop)   # xprop: TrayHost finds the tray menu's window by its type
server_display=1
plasma_probe_dir=$servers_dir/plasma
((desktop_release == 13)) && plasma_probe_dir=$servers_dir/plasma-6

prepare_server() {
    # KDE's own services (kded, kglobalaccel, ...) and the accessibility bus; never
    # org.kde.plasma.Notifications, the stand-alone server that would race plasmashell.
    local service
    # (Their paths in the desktop's own /.)
    for service in "$desktop_root"/usr/share/dbus-1/services/org.kde.*.service "$desktop_root"/usr/share/dbus-1/services/org.a11y.Bus.service; do
        [[ $service == */org.kde.plasma.Notifications.service ]] && continue
        ln -s "${service#"$desktop_root"}" "$XDG_DATA_HOME/dbus-1/services/"
    done
    mkdir -p "$XDG_DATA_HOME/plasma/plasmoids" "$XDG_RUNTIME_DIR/gbnotify-probe"
    ln -s "$plasma_probe_dir/org.gbnotify.probe" "$XDG_DATA_HOME/plasma/plasmoids/"
    mkfifo -m 600 "$XDG_RUNTIME_DIR/gbnotify-probe/requests" "$XDG_RUNTIME_DIR/gbnotify-probe/responses"
    # No animations: popups are where they are going to be as soon as they are shown.
    printf '[KDE]\nAnimationDurationFactor=0\n' >"$XDG_CONFIG_HOME/kdeglobals"
    export XDG_CURRENT_DESKTOP=KDE XDG_SESSION_DESKTOP=KDE KDE_FULL_SESSION=true KDE_SESSION_VERSION=5
    # Plasma 6 reads its version, and finds its applications only through its own menu file
    # (Debian 13 ships plasma-applications.menu alone): without the prefix no desktop entry
    # resolves, and a launcher badge has nothing to attach to.
    ((desktop_release == 13)) && export KDE_SESSION_VERSION=6 XDG_MENU_PREFIX=plasma-
    export XDG_SESSION_TYPE=x11 QT_QPA_PLATFORM=xcb QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1
    # The probe's data engine decodes command output in the locale's encoding.
    export LANG=${LANG:-C.UTF-8}
}

# One request to the probe, its answer printed; fails after 180 s without one.
plasma_probe() {
    local request=$1 fifos=$XDG_RUNTIME_DIR/gbnotify-probe writer
    # Read-write: never blocks, and keeps the line in the FIFO until the probe reads it.
    exec {writer}<>"$fifos/requests"
    printf '%s\n' "$request" >&"$writer"
    timeout 180 cat "$fifos/responses"
    local status=$?
    exec {writer}>&-
    return "$status"
}

start_server() {
    "${in_desktop[@]}" kwin_x11 </dev/null >>"$session_root/logs/kwin_x11.log" 2>&1 &
    service_pids+=("$!")
    # Each about 1 s on an idle machine; minutes on one busy compiling.
    wait_for_bus_name org.kde.KWin kwin_x11 180
    "${in_desktop[@]}" plasmashell </dev/null >>"$session_root/logs/plasmashell.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications plasmashell 180
    wait_for_bus_name org.kde.plasmashell plasmashell 180
    gdbus call --session --timeout 180 --dest org.kde.plasmashell --object-path /PlasmaShell \
        --method org.kde.PlasmaShell.evaluateScript 'desktops()[0].addWidget("org.gbnotify.probe")' \
        >>"$session_root/logs/plasmashell.log" 2>&1 || fail_start plasmashell "did not take the probe applet"
    [[ $(plasma_probe '{"seq":0,"op":"ping"}' 2>>"$session_root/logs/plasmashell.log") == '{"seq":0}' ]] ||
        fail_start plasmashell "has a probe applet that does not answer"
}

# --tray: Plasma's system tray is in the default panel, and the StatusNotifierWatcher it
# registers with is kded5's (started by plasmashell).
tray_tools=()

prepare_tray() {
    :
}

start_tray() {
    wait_for_bus_name org.kde.StatusNotifierWatcher plasmashell 180
}
