# GNOME Shell 43 (Debian 12), or 48 with --debian13, headless, as the notification server:
# sourced by scripts/desktop-session --server gnome-shell. No display: gnome-shell draws on a
# virtual monitor of its own (1280x800), and takes screenshots and pointer events itself.
#
# The extension beside this file (gnome-shell/ for 43; gnome-shell-48/, an ES module, for 48)
# turns on unsafe mode (org.gnome.Shell.Eval for any caller) and defines the probe
# Tests/TestSupport/Rigs/GnomeShell.swift calls; it owns org.gbnotify.test.GnomeShell once the
# shell is ready for a test.
server_tools=(gnome-shell gjs)
server_display=0

gnome_extension=gbnotify-test@gbnotify.test
gnome_extensions_dir=$servers_dir/gnome-shell
((desktop_release == 13)) && gnome_extensions_dir=$servers_dir/gnome-shell-48

prepare_server() {
    # Only GNOME's own services can be activated on this bus: org.gnome.Shell.Notifications,
    # the gjs helper that owns org.freedesktop.Notifications and forwards to gnome-shell, and
    # what gnome-shell asks for while starting.
    local service
    for service in org.a11y.Bus org.gnome.Shell.CalendarServer org.gnome.Shell.Notifications \
        org.gnome.Shell.Screencast; do
        ln -s "/usr/share/dbus-1/services/$service.service" "$XDG_DATA_HOME/dbus-1/services/" ||
            die "no $service.service: is gnome-shell installed?"
    done
    mkdir -p "$XDG_DATA_HOME/gnome-shell/extensions"
    ln -s "$gnome_extensions_dir/$gnome_extension" "$XDG_DATA_HOME/gnome-shell/extensions/"
    # Settings in a key file rather than dconf: written before the start, read by gnome-shell
    # and by every helper the bus activates (they inherit the bus's environment).
    export GSETTINGS_BACKEND=keyfile
    mkdir -p "$XDG_CONFIG_HOME/glib-2.0/settings"
    cat >"$XDG_CONFIG_HOME/glib-2.0/settings/keyfile" <<SETTINGS
[org/gnome/shell]
enabled-extensions=['$gnome_extension']

[org/gnome/desktop/interface]
enable-animations=false
SETTINGS
    export XDG_CURRENT_DESKTOP=GNOME XDG_SESSION_DESKTOP=gnome
}

start_server() {
    # gnome-shell's logind proxy needs *a* system bus; one of its own keeps the host's out of
    # it, and the command's DBUS_SYSTEM_BUS_ADDRESS is left alone for tests to choose.
    cat >"$session_root/shell-system-bus.conf" <<CONF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:dir=$XDG_RUNTIME_DIR</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
CONF
    start_announcing_on_fd3 shell-system-bus dbus-daemon --nofork --config-file="$session_root/shell-system-bus.conf" --print-address=3
    DBUS_SYSTEM_BUS_ADDRESS=$ready_line "${in_desktop[@]}" gnome-shell --headless --virtual-monitor 1280x800 --no-x11 \
        </dev/null >>"$session_root/logs/gnome-shell.log" 2>&1 &
    service_pids+=("$!")
    # About 1 s on an idle machine; minutes on one busy compiling (its JavaScript starves).
    wait_for_bus_name org.gbnotify.test.GnomeShell gnome-shell 180
    wait_for_bus_name org.freedesktop.Notifications gnome-shell 180
}

# --tray: Debian's AppIndicator extension (gnome-shell-extension-appindicator), which owns
# org.kde.StatusNotifierWatcher inside gnome-shell and puts each item in the top bar.
appindicator_extension=ubuntu-appindicators@ubuntu.com
tray_tools=()

prepare_tray() {
    [[ -d $desktop_root/usr/share/gnome-shell/extensions/$appindicator_extension ]] ||
        die "no $appindicator_extension (apt install gnome-shell-extension-appindicator)"
    sed -i "s/^enabled-extensions=.*/enabled-extensions=['$gnome_extension', '$appindicator_extension']/" \
        "$XDG_CONFIG_HOME/glib-2.0/settings/keyfile"
}

start_tray() {
    wait_for_bus_name org.kde.StatusNotifierWatcher gnome-shell 180
}
