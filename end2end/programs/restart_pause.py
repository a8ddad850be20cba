"""Pauses once at breakpoint() (the page shows it after the server restarted)."""
import breakroom

served_after_restart = "yes"
breakroom.set_trace()
print("resumed", served_after_restart)
