/* core.cache_sha256: the cache's hash against the FIPS 180-2 appendix B
 * test vectors and the NIST "million a" vector, fed whole and in odd-sized
 * pieces (block-boundary handling), plus the hex encoding. */
#include <string.h>

#include "core/hash.h"
#include "devtest.h"

static void expect(const char *msg, size_t len, size_t piece,
                   const char *hex) {
  dg_hash h;
  dg_hash_init(&h);
  for (size_t off = 0; off < len; off += piece)
    dg_hash_update(&h, msg + off, len - off < piece ? len - off : piece);
  unsigned char d[DG_HASH_SIZE];
  dg_hash_final(&h, d);
  char got[DG_HASH_HEX_SIZE];
  dg_hash_hex(d, DG_HASH_SIZE, got);
  CHECK(strcmp(got, hex) == 0, "len %zu piece %zu: %s, expected %s", len,
        piece, got, hex);
}

int main(void) {
  const char *abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
  const char *empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
  const char *two = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
  const char *million = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
  const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  static const size_t pieces[] = {1, 3, 55, 56, 63, 64, 65, 1000000};
  for (size_t i = 0; i < sizeof pieces / sizeof pieces[0]; i++) {
    expect("abc", 3, pieces[i], abc);
    expect("", 0, pieces[i], empty);
    expect(m2, strlen(m2), pieces[i], two);
  }
  char *as = malloc(1000000);
  CHECK(as, "out of memory");
  memset(as, 'a', 1000000);
  expect(as, 1000000, 1000000, million);
  expect(as, 1000000, 4097, million);
  free(as);

  unsigned char d[DG_HASH_SIZE];
  dg_hash_buffer("abc", 3, d);
  char hex[DG_HASH_HEX_SIZE];
  dg_hash_hex(d, DG_HASH_SIZE, hex);
  CHECK(strcmp(hex, abc) == 0, "one-shot: %s", hex);

  /* Length-prefixed fields keep concatenations apart. */
  dg_hash h1, h2;
  dg_hash_init(&h1);
  dg_hash_update_field(&h1, "ab");
  dg_hash_update_field(&h1, "c");
  dg_hash_init(&h2);
  dg_hash_update_field(&h2, "a");
  dg_hash_update_field(&h2, "bc");
  unsigned char d1[DG_HASH_SIZE], d2[DG_HASH_SIZE];
  dg_hash_final(&h1, d1);
  dg_hash_final(&h2, d2);
  CHECK(memcmp(d1, d2, DG_HASH_SIZE) != 0, "\"ab\"+\"c\" == \"a\"+\"bc\"");
  return 0;
}
