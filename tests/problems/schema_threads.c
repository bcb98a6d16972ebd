/* problems.schema_threads: the problem.cfg schema built by its first callers
 * on several threads at once is the one table, with each key once (the
 * tuner's worker threads and the driver may both ask for it). */
#include <pthread.h>
#include <string.h>

#include "problems/driver/problem.h"
#include "tests/expect.h"

enum { THREADS = 8 };

static pthread_barrier_t start;
static const dg_config_key *got[THREADS];
static size_t got_n[THREADS];

static void *ask(void *arg) {
  int i = (int)(intptr_t)arg;
  pthread_barrier_wait(&start); /* all first calls at once */
  got[i] = dg_problem_schema(&got_n[i]);
  return NULL;
}

static int same_key(const dg_config_key *a, const dg_config_key *b) {
  return strcmp(a->section, b->section) == 0 &&
         (a->key && b->key ? strcmp(a->key, b->key) == 0 : a->key == b->key);
}

int main(void) {
  pthread_t t[THREADS];
  CHECK(pthread_barrier_init(&start, NULL, THREADS) == 0, "pthread_barrier_init");
  for (int i = 0; i < THREADS; i++)
    CHECK(pthread_create(&t[i], NULL, ask, (void *)(intptr_t)i) == 0, "pthread_create");
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  for (int i = 1; i < THREADS; i++)
    EXPECT(got[i] == got[0] && got_n[i] == got_n[0], "thread %d saw %zu keys, thread 0 %zu", i,
           got_n[i], got_n[0]);
  size_t n = got_n[0];
  const dg_config_key *s = got[0];
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      EXPECT(!same_key(&s[i], &s[j]), "[%s] %s appears twice (rows %zu and %zu)", s[i].section,
             s[i].key ? s[i].key : "(any)", i, j);
  int knobs = 0;
  for (size_t i = 0; i < n; i++)
    knobs += strcmp(s[i].section, "backend") == 0 && s[i].key &&
             strcmp(s[i].key, "elements_per_block") == 0;
  EXPECT(knobs == 1, "[backend] elements_per_block appears %d times", knobs);
  pthread_barrier_destroy(&start);
  return expect_finish();
}
