/* core.device_events: events on the cpu backend time host work: elapsed
 * times are non-negative, grow with later stop events, and cover a sleep
 * of known length.  An unrecorded event is an error. */
#include <time.h>

#include "devtest.h"

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

int main(void) {
  dg_device *dev;
  MUST(dg_device_create("cpu", 0, &dev));
  dg_stream *s;
  MUST(dg_stream_create(dev, &s));
  dg_event *e0, *e1, *e2, *never;
  MUST(dg_event_create(dev, &e0));
  MUST(dg_event_create(dev, &e1));
  MUST(dg_event_create(dev, &e2));
  MUST(dg_event_create(dev, &never));

  MUST(dg_event_record(e0, s));
  MUST(dg_event_record(e1, s));
  sleep_ms(20);
  MUST(dg_event_record(e2, NULL));
  MUST(dg_stream_wait_event(s, e2));
  MUST(dg_stream_synchronize(s));
  MUST(dg_event_synchronize(e2));
  float t01, t02, t12;
  MUST(dg_event_elapsed_ms(e0, e1, &t01));
  MUST(dg_event_elapsed_ms(e0, e2, &t02));
  MUST(dg_event_elapsed_ms(e1, e2, &t12));
  CHECK(t01 >= 0.0f, "elapsed(e0, e1) = %g ms is negative", t01);
  CHECK(t02 >= t01, "elapsed(e0, e2) = %g < elapsed(e0, e1) = %g", t02, t01);
  /* nanosleep sleeps at least the time asked; float rounding of a few
   * tens of ms is far below 0.01 ms. */
  CHECK(t12 >= 19.99f, "a 20 ms sleep measured as %g ms", t12);
  CHECK(t02 >= t12, "elapsed(e0, e2) = %g < elapsed(e1, e2) = %g", t02, t12);

  float bad;
  CHECK(dg_event_elapsed_ms(e0, never, &bad) == DG_ERR_ARG,
        "an unrecorded event must be an error");
  dg_error_clear();

  dg_event_destroy(&e0);
  dg_event_destroy(&e1);
  dg_event_destroy(&e2);
  dg_event_destroy(&never);
  CHECK(e0 == NULL, "destroy must clear the handle");
  dg_stream_destroy(&s);
  CHECK(s == NULL, "destroy must clear the handle");
  dg_device_destroy(&dev);
  return 0;
}
