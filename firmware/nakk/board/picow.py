"""The Pico W board: the Pico's board (pico.py, pin for pin) with the Wi-Fi chip (CYW43439) as board.net.

build(**options) returns pico.Board with `net`, a WlanNet over network.WLAN:
the live link (nakk/link/net.py) joins the network the judge gave at pairing and
reports each saved entry. The radio is switched on only when it does (a box
with no network configured never touches it), and a box out of range is an
ordinary box. maintenance() and request_maintenance() are the Pico's.

Differences from the Pico worth knowing: GP24 is not VBUS on a Pico W but the
radio's data line (VBUS is WL_GPIO2, read through the radio: WlVbus), and the
onboard LED is on the radio (not used).
"""

from nakk.board import pico
from nakk.board.pico import maintenance, request_maintenance  # noqa: F401  (the Pico's own)


class WlanNet:
    """board.net on a Pico W (the shape is board/__init__.py's): the station interface of network.WLAN."""

    def __init__(self):
        self.wlan = None
        self.joins = 0

    def join(self, ssid, password):
        import network
        if self.wlan is None:
            self.wlan = network.WLAN(network.STA_IF)
            self.wlan.active(True)
            try:
                self.wlan.config(pm=0xa11140)   # the CYW43's "performance" power mode: answers in ms, not 100s
            except (ValueError, OSError, TypeError):
                pass
        self.joins += 1
        try:
            self.wlan.disconnect()
        except OSError:
            pass
        self.wlan.connect(ssid, password)

    def up(self):
        return self.wlan is not None and self.wlan.isconnected()


class WlVbus:
    """VBUS on a Pico W: WL_GPIO2, read through the radio, so only once the radio is on (the live
    link switched it on); before that 1, the safe answer (power.md: the rings dim on a LiPo box).
    GP24, the Pico's VBUS pin, is the radio's SPI data line here and is never touched."""

    def __init__(self, net):
        self.net = net
        self.pin = None

    def value(self):
        if self.net.wlan is None:
            return 1
        if self.pin is None:
            from machine import Pin
            self.pin = Pin("WL_GPIO2", Pin.IN)
        return self.pin.value()


def build(watchdog=True, sides=3, buzzer=True, **_options):
    """The Pico's Board with the Pico W's network (and its VBUS through the radio)."""
    net = WlanNet()
    board = pico.Board(watchdog=watchdog, sides=sides, buzzer=buzzer, vbus=WlVbus(net))
    board.net = net
    return board

