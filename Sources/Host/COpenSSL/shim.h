// OpenSSL's libcrypto (Debian's libssl-dev), for SHA-256.
#include <openssl/evp.h>
