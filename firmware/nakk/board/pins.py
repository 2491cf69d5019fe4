"""Pin map and power limits of the reference board; mirrors hardware/pins.json (a test checks they agree)."""
# Only constants live here: no hardware access, so CPython, the unix port
# and the Pico all import it. See hardware/README.md for the wiring and
# hardware/power.md for where the LED numbers come from.

from nakk.compat import const

# --- Display: SSD1306 128x64 on hardware SPI0 ---------------------------
SPI_ID = const(0)
SPI_BAUD = const(10000000)  # SSD1306 serial clock limit (100 ns cycle)
SPI_SCK = const(18)
SPI_MOSI = const(19)
SPI_MISO = const(16)  # not wired; SPI(0) claims it, so keep it free
OLED_CS = const(17)
OLED_DC = const(20)
OLED_RST = const(21)
OLED_WIDTH = const(128)
OLED_HEIGHT = const(64)

# --- LED rings: one WS2812B 16-LED ring per side, one data pin each -----
RING_A = const(6)
RING_B = const(7)
RING_C = const(8)  # six-player Schmier only
LEDS_PER_RING = const(16)
RINGS = (RING_A, RING_B, RING_C)  # index 0, 1, 2 = side A, B, C

# --- Buttons: switch to GND, internal pull-up, so pressed reads 0 -------
BTN_A = const(2)
BTN_B = const(3)
BTN_C = const(4)  # optional on a four-player box
BTN_PREV = const(13)
BTN_OK = const(14)  # held at power-on: maintenance mode
BTN_NEXT = const(15)
BTN_PRESSED = const(0)
SIDE_BUTTONS = (BTN_A, BTN_B, BTN_C)
# Ordered (name, gpio) pairs: MicroPython dicts keep no order.
BUTTONS = (
    ("A", BTN_A),
    ("B", BTN_B),
    ("C", BTN_C),
    ("PREV", BTN_PREV),
    ("OK", BTN_OK),
    ("NEXT", BTN_NEXT),
)

# --- Buzzer: passive piezo on PWM (optional, mutable) -------------------
BUZZER = const(22)

# --- Supply sensing -----------------------------------------------------
VBUS_SENSE = const(24)  # on the Pico: 1 while USB VBUS is present
VSYS_ADC = const(29)  # ADC3 = VSYS / 3 (the LED rail)
BAT_ADC = const(28)  # ADC2 = LiPo / 2 (external 100k/100k divider)
SMPS_PS = const(23)  # on the Pico: 1 = buck in PWM mode, quieter ADC
STATUS_LED = const(25)  # on the Pico: green LED
VSYS_DIV = const(3)
BAT_DIV = const(2)
ADC_VREF_MV = const(3300)
BAT_PRESENT_MV = const(3000)  # below this on BAT_ADC: no battery fitted
BAT_LOW_MV = const(3400)  # warn the table; the PowerBoost cuts off near 3.2 V

# --- LED power budget (hardware/power.md shows the arithmetic) ----------
# Current is estimated per colour channel: a channel at value v draws
# about v * LED_MA_PER_CHANNEL / 255 mA (20 mA is the pessimistic end of
# the WS2812B's 12-20 mA). The renderer keeps the sum over every channel
# of every lit LED on all rings at or under the cap, in integers:
#     sum(v) * LED_MA_PER_CHANNEL <= cap * 255
# where cap is MAX_TOTAL_MA, or USB_MAX_TOTAL_MA on the judge's USB.
SUPPLY_MA = const(500)  # one USB 2.0 port
FIXED_MA = const(134)  # Pico, OLED, dark LEDs, level shifter, piezo, pull-ups
LED_MA_PER_CHANNEL = const(20)
LED_MA_FULL_WHITE = const(60)  # 3 channels at 255
LED_MA_IDLE = const(1)  # each WS2812B draws this even when dark
MAX_TOTAL_MA = const(350)  # cap on all rings' colour current together
USB_DIM_PCT = const(25)  # on the judge's hub: cap scaled to 25 %
USB_MAX_TOTAL_MA = const(87)  # MAX_TOTAL_MA * USB_DIM_PCT // 100
