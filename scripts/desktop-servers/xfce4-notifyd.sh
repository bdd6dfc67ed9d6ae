# xfce4-notifyd 0.7 (Debian 12) or 0.9 (with --debian13), Xfce's notification server, on the
# session's Xvfb display: sourced by scripts/desktop-session --server xfce4-notifyd. Its bubbles
# are GTK windows, read and pressed over AT-SPI (on-screen beside this file; xdotool and import
# are this machine's); it reads its settings from xfconfd.
xfce4_notifyd=$(cd "$desktop_root/" && printf /%s usr/lib/*/xfce4/notifyd/xfce4-notifyd)
server_tools=("$xfce4_notifyd")
server_host_tools=(xdotool import xprop)   # xprop: TrayHost finds the tray menu's window by its type
server_display=1

prepare_server() {
    local service
    for service in org.a11y.Bus org.xfce.Xfconf; do
        ln -s "/usr/share/dbus-1/services/$service.service" "$XDG_DATA_HOME/dbus-1/services/"
    done
    export XDG_CURRENT_DESKTOP=XFCE
}

start_server() {
    "${in_desktop[@]}" "$xfce4_notifyd" </dev/null >>"$session_root/logs/xfce4-notifyd.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.freedesktop.Notifications xfce4-notifyd
}

# --tray: Xfce's panel (xfce4-panel 4.18, or 4.20 with --debian13) along the top of the display with one plugin, the
# Status Tray (systray), which is the StatusNotifierWatcher and shows each item. The panel's
# settings are written before xfconfd starts, so it starts as configured, without its
# first-start dialog.
tray_tools=(xfce4-panel)

prepare_tray() {
    local channel=$XDG_CONFIG_HOME/xfce4/xfconf/xfce-perchannel-xml
    mkdir -p "$channel"
    cat >"$channel/xfce4-panel.xml" <<'XML'
<?xml version="1.0" encoding="UTF-8"?>
<channel name="xfce4-panel" version="1.0">
  <property name="configver" type="int" value="2"/>
  <property name="panels" type="array">
    <value type="int" value="1"/>
    <property name="panel-1" type="empty">
      <property name="position" type="string" value="p=6;x=0;y=0"/>
      <property name="length" type="uint" value="100"/>
      <property name="position-locked" type="bool" value="true"/>
      <property name="size" type="uint" value="32"/>
      <property name="plugin-ids" type="array">
        <value type="int" value="1"/>
      </property>
    </property>
  </property>
  <property name="plugins" type="empty">
    <property name="plugin-1" type="string" value="systray">
      <property name="square-icons" type="bool" value="true"/>
    </property>
  </property>
</channel>
XML
}

start_tray() {
    "${in_desktop[@]}" xfce4-panel </dev/null >>"$session_root/logs/xfce4-panel.log" 2>&1 &
    service_pids+=("$!")
    wait_for_bus_name org.kde.StatusNotifierWatcher xfce4-panel 180
}
