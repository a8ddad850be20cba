import breakroom


class Sensor:
    def __init__(self):
        self.reading = 21
        self.label = "north"

    @property
    def calibrate(self):
        raise RuntimeError("a getter ran")


def inspect_me(sensor, settings):
    return sensor.reading


inspect_me = breakroom.with_debug(inspect_me)
print(inspect_me(Sensor(), {"mode": "fast", "level": 3}))
