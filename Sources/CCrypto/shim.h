// Only what the Secret Service session needs: big numbers for Diffie-Hellman, HKDF, AES-CBC,
// randomness and cleansing. None of it is deprecated in OpenSSL 3.
#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
