# Renders the loaded save file over the loaded trace to a PNG, then quits GTKWave.
# Used by scripts/render_waves.sh, which passes (environment):
#   MXU_RENDER_OUT    absolute path of the PNG to write
#   MXU_RENDER_START  first time shown, in the trace's units (ps), optional
#   MXU_RENDER_END    last time shown, optional (both or neither)
# A window given: the From/To fields say it too (they would show the whole trace), then the zoom.
if {[info exists ::env(MXU_RENDER_START)] && [info exists ::env(MXU_RENDER_END)]} {
  gtkwave::setFromEntry $::env(MXU_RENDER_START)
  gtkwave::setToEntry $::env(MXU_RENDER_END)
  gtkwave::setZoomRangeTimes $::env(MXU_RENDER_START) $::env(MXU_RENDER_END)
}
# Let the window draw before it is grabbed.
gtkwave::nop
gtkwave::/File/Grab_To_File $::env(MXU_RENDER_OUT)
gtkwave::/File/Quit
