#!/usr/bin/env python3
"""Reads a meter from a camera snapshot on a schedule and publishes it to Home Assistant over MQTT.

    python3 photometer_mqtt_bridge.py --meter Water --snapshot http://camera.local/snapshot.jpg \\
        --every 3600 --mqtt-host 127.0.0.1 [--mqtt-port 1883] [--mqtt-username U --mqtt-password P] \\
        [--host photometer-host] [--db FILE] [--plugins FILE] [--min-confidence 0.9] [--once]

Each round fetches the snapshot (a URL or a file), reads it through photometer-host as the
registered meter (its window, digits and decimals, and the plausibility check against its last
reading), and, when the reading is sure enough (--min-confidence) and plausible, stores it in the
meter's history and publishes it. Home Assistant finds the sensor by MQTT discovery
(`homeassistant/sensor/photometer_<meter>/config`, retained): device class water, gas or energy,
state class total_increasing for a meter that counts up, the meter's unit. The state goes to
`photometer/<meter>/state` (retained) as JSON: value, confidence, reading id and time. A reading
that is skipped is reported on standard error and not stored. Needs the `photometer` module in
clients/python and paho-mqtt (Debian: python3-paho-mqtt).
"""
import argparse
import json
import os
import re
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../clients/python"))

import paho.mqtt.client as mqtt  # noqa: E402
from photometer import Client, PhotometerError, pb  # noqa: E402

DEVICE_CLASSES = {pb.METER_KIND_WATER: "water", pb.METER_KIND_GAS: "gas", pb.METER_KIND_ELECTRICITY: "energy",
                  pb.METER_KIND_HEAT: "energy"}
UNITS = {"m3": "m³", "C": "°C", "F": "°F"}


def object_id(name):
    """The meter's name as an MQTT topic level and Home Assistant object id."""
    return re.sub(r"[^a-z0-9_]+", "_", name.lower()).strip("_") or "meter"


def snapshot(source):
    if re.match(r"https?://", source):
        with urllib.request.urlopen(source, timeout=30) as response:
            return response.read()
    with open(source, "rb") as file:
        return file.read()


def discovery(meter, prefix, topic):
    """Home Assistant's MQTT discovery message for the meter's sensor."""
    identifier = f"photometer_{object_id(meter.name)}"
    config = {
        "name": meter.name, "unique_id": identifier, "object_id": identifier,
        "state_topic": topic, "value_template": "{{ value_json.value }}", "json_attributes_topic": topic,
        "unit_of_measurement": UNITS.get(meter.unit, meter.unit),
        "device": {"identifiers": [identifier], "name": f"Photometer {meter.name}", "manufacturer": "Photometer"},
    }
    if meter.kind in DEVICE_CLASSES:
        config["device_class"] = DEVICE_CLASSES[meter.kind]
    config["state_class"] = "total_increasing" if meter.counts_up else "measurement"
    return f"{prefix}/sensor/{identifier}/config", json.dumps(config)


def skip_reason(result, min_confidence):
    """Why a reading is not published, or None."""
    if not result.value:
        return f"nothing read ({result.summary})"
    if "implausible" in result.flags:
        return f"{result.value} is implausible for the meter ({result.summary})"
    if result.confidence < min_confidence:
        return f"{result.value} is read with confidence {result.confidence:.2f}, under {min_confidence}"
    return None


def mqtt_client(arguments):
    if hasattr(mqtt, "CallbackAPIVersion"):  # paho-mqtt 2
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"photometer-{os.getpid()}")
    else:
        client = mqtt.Client(client_id=f"photometer-{os.getpid()}")
    if arguments.mqtt_username:
        client.username_pw_set(arguments.mqtt_username, arguments.mqtt_password)
    client.connect(arguments.mqtt_host, arguments.mqtt_port)
    client.loop_start()
    return client


def publish(client, topic, payload):
    """Publishes retained at QoS 1 and waits until the broker has it."""
    info = client.publish(topic, payload, qos=1, retain=True)
    info.wait_for_publish(30)
    if not info.is_published():
        raise ConnectionError(f"the MQTT broker did not take {topic}")


def one_round(host, client, meter, arguments):
    """Reads, stores and publishes one snapshot; returns whether it published."""
    image = snapshot(arguments.snapshot)
    result = host.read(image, meter=meter.name)
    reason = skip_reason(result, arguments.min_confidence)
    if reason:
        print(f"photometer-mqtt-bridge: skipped: {reason}", file=sys.stderr, flush=True)
        return False
    stored = host.request(add_reading=pb.AddReading(
        meter=meter.name, value=result.value, photo=pb.Image(data=image), source=pb.READING_SOURCE_OCR,
        confidence=result.confidence, engines=result.engines, crop=result.crop.data))
    reading = stored.reading
    state = {"value": reading.numeric, "as_read": reading.value, "unit": reading.unit,
             "confidence": round(result.confidence, 4), "reading_id": reading.id,
             "taken_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(reading.taken_at_ms / 1000))}
    publish(client, f"{arguments.topic_prefix}/{object_id(meter.name)}/state", json.dumps(state))
    print(f"photometer-mqtt-bridge: published {meter.name} = {reading.value} {reading.unit}", flush=True)
    return True


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--meter", required=True, help="the registered meter the snapshot shows")
    parser.add_argument("--snapshot", required=True, help="a URL (http or https) or a file")
    parser.add_argument("--every", type=float, default=3600, help="seconds between rounds")
    parser.add_argument("--once", action="store_true", help="one round, then exit (1 when it was skipped)")
    parser.add_argument("--min-confidence", type=float, default=0.9)
    parser.add_argument("--host", default="photometer-host", help="the photometer-host program")
    parser.add_argument("--db", help="the meter database (default: the host's)")
    parser.add_argument("--plugins", help="the plugin configuration (default: the host's)")
    parser.add_argument("--mqtt-host", default="127.0.0.1")
    parser.add_argument("--mqtt-port", type=int, default=1883)
    parser.add_argument("--mqtt-username")
    parser.add_argument("--mqtt-password")
    parser.add_argument("--discovery-prefix", default="homeassistant")
    parser.add_argument("--topic-prefix", default="photometer")
    arguments = parser.parse_args(argv[1:])
    host_arguments = [*(["--db", arguments.db] if arguments.db else []),
                      *(["--plugins", arguments.plugins] if arguments.plugins else [])]
    with Client.launch(arguments.host, *host_arguments, name="photometer-mqtt-bridge") as host:
        try:
            meter = host.meter(arguments.meter)
        except PhotometerError as error:
            print(f"photometer-mqtt-bridge: {error}; register it first (photometer meter add)", file=sys.stderr)
            return 2
        client = mqtt_client(arguments)
        try:
            publish(client, *discovery(meter, arguments.discovery_prefix,
                                       f"{arguments.topic_prefix}/{object_id(meter.name)}/state"))
            while True:
                try:
                    published = one_round(host, client, meter, arguments)
                except (OSError, PhotometerError) as error:
                    print(f"photometer-mqtt-bridge: round failed: {error}", file=sys.stderr, flush=True)
                    published = False
                if arguments.once:
                    return 0 if published else 1
                time.sleep(arguments.every)
        finally:
            client.loop_stop()
            client.disconnect()


if __name__ == "__main__":
    sys.exit(main(sys.argv))
