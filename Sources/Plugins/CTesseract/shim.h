// Tesseract's C API (libtesseract-dev).
#include <tesseract/capi.h>
