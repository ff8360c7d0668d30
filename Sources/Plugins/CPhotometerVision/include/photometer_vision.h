// The OpenCV work of Photometer's recognizers, as plain C for Swift.
//
// Every function catches OpenCV's exceptions and returns a status; nothing throws across this
// boundary. Objects are opaque and freed with their `_free` function. Coordinates are in pixels of
// the image as decoded (EXIF orientation applied), before any downsizing.
#ifndef PHOTOMETER_VISION_H
#define PHOTOMETER_VISION_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  PM_OK = 0,
  PM_BAD_IMAGE = 1,
  PM_BAD_ARGUMENT = 2,
  PM_FAILED = 3,
} pm_status;

/// The text of the last failure on this thread (OpenCV's message), or "".
const char *pm_last_error(void);

// MARK: Images

typedef struct pm_image pm_image;

/// Decodes JPEG, PNG, BMP, WebP..., applying EXIF orientation, to 8-bit BGR. With `max_side` > 0
/// the result is shrunk so that its longer side is at most `max_side`; `pm_image_scale` then
/// tells how much.
pm_status pm_image_decode(const uint8_t *data, size_t size, int max_side, pm_image **out);
/// Decodes as `pm_image_decode` does, a JPEG at a half, a quarter or an eighth of its size by
/// libjpeg's own scaling when its longer side stays at least `least_side` (no resizing after);
/// any other image whole. With `most_side` > 0, an image still larger (one libjpeg cannot scale:
/// PNG, BMP) is then shrunk to it. `pm_image_scale` tells how much.
pm_status pm_image_decode_reduced(const uint8_t *data, size_t size, int least_side, int most_side, pm_image **out);
/// An image from 8-bit grey or BGR pixels (copied).
pm_status pm_image_from_pixels(const uint8_t *pixels, int width, int height, int channels, pm_image **out);
void pm_image_free(pm_image *image);
int pm_image_width(const pm_image *image);
int pm_image_height(const pm_image *image);
int pm_image_channels(const pm_image *image);
/// Decoded size over original size (1 when not shrunk).
double pm_image_scale(const pm_image *image);
/// Copies the pixels (rows packed) into `out`, which holds width x height x channels bytes.
void pm_image_pixels(const pm_image *image, uint8_t *out);

/// The part of `image` inside the rectangle (clipped to the image; fails when nothing is left).
pm_status pm_image_crop(const pm_image *image, int x, int y, int width, int height, pm_image **out);
/// `image` turned `quarter_turns` quarter turns clockwise (any whole number; 4 is none).
pm_status pm_image_turn(const pm_image *image, int quarter_turns, pm_image **out);
/// The quadrilateral `corners` (x0,y0 .. x3,y3: top-left, top-right, bottom-right, bottom-left)
/// straightened into a `width` x `height` image.
pm_status pm_image_warp(const pm_image *image, const float corners[8], int width, int height, pm_image **out);
/// Encodes as PNG (`".png"`) or JPEG (`".jpg"`); free `*out` with `pm_free`.
/// A copy of the image with `count` quadrilaterals drawn on it: `quads` holds 8 floats each (x, y
/// of 4 corners in order), `colours` one 0xRRGGBB each, `labels` one text each (may be empty),
/// written on a patch of the colour at the first corner.
pm_status pm_image_annotate(
  const pm_image *image, const float *quads, const uint32_t *colours, const char *const *labels, int count,
  pm_image **out);
pm_status pm_image_encode(const pm_image *image, const char *extension, int quality, uint8_t **out, size_t *size);
void pm_free(void *pointer);

/// The dominant colour of the central half of the image, as 0xRRGGBB (k-means over a thumbnail).
pm_status pm_image_dominant_colour(const pm_image *image, uint32_t *rgb);

typedef struct {
  /// Variance of the Laplacian of the grey image scaled to 32 pixels high, the sequence reader's
  /// input: blur measured as the reader sees it, relative to the crop's height.
  double sharpness;
  /// Share of the middle rows, at 32 pixels high, in saturated blobs wider than a stroke and
  /// brighter than the image's darker tenth by 40 or more (glare).
  double glare;
  /// 5th to 95th percentile of grey levels.
  double contrast;
} pm_quality;

pm_status pm_image_quality(const pm_image *image, pm_quality *quality);

// MARK: Colour histograms

typedef enum {
  /// HSV hue x saturation, 50 x 60 bins, min-max normalised: the reference application's method.
  PM_HISTOGRAM_SEED = 0,
  /// Grey-world balanced chromaticity, coarse smoothed bins, on a 2 x 2 grid plus a luminance
  /// layout: robust to white balance, exposure and near-identical colours.
  PM_HISTOGRAM_ROBUST = 1,
} pm_histogram_mode;

/// The number of floats `pm_histogram` writes for `mode`.
int pm_histogram_size(pm_histogram_mode mode);
pm_status pm_histogram(const pm_image *image, pm_histogram_mode mode, float *out);

typedef enum {
  PM_COMPARE_CORRELATION = 0,
  PM_COMPARE_CHI_SQUARE = 1,
  PM_COMPARE_INTERSECTION = 2,
  PM_COMPARE_BHATTACHARYYA = 3,
} pm_compare_method;

/// OpenCV's `compareHist` of two histograms of `count` floats.
double pm_histogram_compare(const float *a, const float *b, int count, pm_compare_method method);

// MARK: Dials

typedef struct {
  /// Where the pointer stands, in [0, 10): 4.5 is half-way from 4 to 5.
  double value;
  /// 0 to 1: low when another mark looks as much like a pointer, or the pointer hardly shows.
  double confidence;
} pm_dial_reading;

/// A dial's box in the photo, as drawn around it (its ring, perhaps its numbers); its numbers run
/// clockwise, or anticlockwise when `counter_clockwise`; 0 at the top of the dial.
typedef struct {
  int x, y, width, height;
  int counter_clockwise;
} pm_dial_region;

/// Reads `count` pointer dials of one meter into `out` (as many): the dials are taken to be turned
/// alike in the photo, as a meter's are, and the turn is measured on all of them together.
pm_status pm_dials_read(const pm_image *image, const pm_dial_region *dials, int count, pm_dial_reading *out);

/// A dial of a meter's reference photo: its centre and radius, in the reference's pixels.
typedef struct {
  double x, y, radius;
} pm_dial_circle;

/// Finds a meter in `image` by its `count` (2 or more) dials as they lie in its reference photo:
/// the circles in the photo that a similarity transform (turned at most 45 degrees, scaled within
/// 2.5 times of `expected_scale`, photo pixels per reference pixel) puts the most dials on. Writes
/// the transform to `homography` (row-major 3 x 3, reference to photo pixels) and how many dials it
/// matched to `matched`; 0 matched, and `homography` untouched, when fewer than 3 (2 of 2) were.
pm_status pm_dials_locate(
  const pm_image *image, const pm_dial_circle *dials, int count, double expected_scale, double *homography,
  int *matched);

/// Where a dial of a meter's reference is found in a photo: how far from where a homography puts it.
typedef struct {
  /// The dial's box, as it best matches in the photo straightened through the homography, less the
  /// box where the homography puts it, in the reference's pixels.
  double dx, dy;
  /// The match's normalised cross-correlation, -1 to 1.
  double score;
} pm_dial_shift;

/// Finds each of `count` dial boxes of `reference` in `photo` straightened into the reference's
/// frame through `homography` (row-major 3 x 3, reference to photo pixels), within half the box's
/// side of where it puts it, by normalised cross-correlation; writes each dial's shift to `out`.
pm_status pm_dials_shifts(
  const pm_image *reference, const pm_image *photo, const double *homography, const pm_dial_region *dials, int count,
  pm_dial_shift *out);

/// Refines `homography` (row-major 3 x 3, from `reference`'s pixels to `photo`'s, already close:
/// `pm_dials_locate`'s) so that the photo through it looks most like the reference, by the
/// enhanced correlation coefficient over the whole image; writes the correlation reached (0 when it
/// did not converge, `homography` then as given).
pm_status pm_image_align(const pm_image *reference, const pm_image *photo, double *homography, double *correlation);

// MARK: Keypoints

typedef struct pm_keypoints pm_keypoints;

/// ORB keypoints and descriptors of the image (grey, as given: shrink it first).
pm_status pm_keypoints_detect(const pm_image *image, int max_features, pm_keypoints **out);
/// As `pm_keypoints_detect`, and `tilted_features` more from each of the views of the image as
/// seen from the side (squeezed across or down): a reference's keypoints, in its own pixels. With
/// a window (the meter's digits, in the image's pixels; `window_width` 0 for none), only on the
/// meter around it, as far as its colours tell it from the background.
pm_status pm_keypoints_detect_views(
  const pm_image *image, int max_features, int tilted_features, int window_x, int window_y, int window_width,
  int window_height, pm_keypoints **out);
void pm_keypoints_free(pm_keypoints *keypoints);
int pm_keypoints_count(const pm_keypoints *keypoints);
/// Where the keypoints are, in pixels of the image they were detected in: x, y for each, into
/// `xy` (2 x count floats).
void pm_keypoints_points(const pm_keypoints *keypoints, float *xy);
/// The keypoints as bytes (for a cache on disk; free with `pm_free`), and back: the same
/// keypoints, descriptors, views and scale. Decoding bytes of another layout or a cut-off file is
/// PM_BAD_ARGUMENT.
pm_status pm_keypoints_encode(const pm_keypoints *keypoints, uint8_t **out, size_t *size);
pm_status pm_keypoints_decode(const uint8_t *data, size_t size, pm_keypoints **out);

typedef struct pm_keypoint_index pm_keypoint_index;

/// One LSH index over the head-on descriptors of all `count` references, its hash tables built on
/// `threads` threads (the same index for any number). It reads the references' keypoints (their
/// tilted views' too) when it verifies, without copying them: they must outlive the index. With
/// `words` nonzero it also draws visual words from the references' descriptors, and a query's
/// shortlist counts the words it shares with each reference (for large households).
pm_status pm_keypoint_index_build(
  pm_keypoints *const *references, int count, int threads, int words, pm_keypoint_index **out);
void pm_keypoint_index_free(pm_keypoint_index *index);
/// Matches the query's descriptors against every reference at once. `votes` (one int per
/// reference) weighs the query descriptors with a near neighbour in that reference (at most
/// `max_distance` bits away) that agree on its best pose (rotation, scale and shift). The `verify`
/// references with most votes (an index with words: those and the references sharing most words
/// with the query, in turn; with `posed` nonzero as well, that many of each ranked again by how
/// many of their keypoints sharing a word with the query's agree on one pose, and the first
/// `verify` of that) are then checked with a RANSAC homography over the query's
/// ratio-test matches with each alone, scored by how widely its inliers spread: `verified` holds
/// their indices (-1 past the end), `inliers` their spread inlier scores (0 without a plausible
/// homography), `homographies` 9 doubles each, mapping original reference pixels to original query
/// pixels. The work is shared among `threads` threads (the calling one and more); the answer is
/// the same for any number.
pm_status pm_keypoint_index_query(
  const pm_keypoint_index *index, const pm_keypoints *query, int max_distance, int verify, int posed, int threads,
  int *votes, int *verified, int *inliers, double *homographies);

// MARK: Digits

/// Grey, dark digits on a light background (polarity decided from the border), contrast
/// stretched, scaled to `height` pixels high, with a white border of `border` pixels: what
/// Tesseract reads best. With `binarize`, Otsu's threshold is applied too.
pm_status pm_digits_prepare(const pm_image *image, int height, int border, int binarize, pm_image **out);

/// The digit window inside the crop's dark frame (a wheel counter's housing, a display's bezel):
/// the crop less the outer rows and columns that are mostly dark once digits are dark on light,
/// at most a quarter of each side. `rect` is x, y, width, height in the crop's pixels.
pm_status pm_digits_window(const pm_image *image, int rect[4]);

/// Finds the `expected` lines of text in an image (e.g. a blood-pressure monitor's systolic,
/// diastolic and pulse), top to bottom: bands of rows holding ink (the minority side of Otsu's
/// threshold), the `expected` with most ink kept (with `topmost`, the first `expected` from the
/// top); when fewer are found, the image is split into `expected` equal bands. `rects` holds 4 ints
/// per line (x, y, width, height), full width.
pm_status pm_text_lines(const pm_image *image, int expected, int topmost, int *rects);

/// Candidate rows of digits in a whole photo, best first, at most `max_rows`: `rects` gets 4 ints
/// a row (x, y, width, height, with a margin), `scores` one float (more digits, taller, more
/// alike: higher), `digits` how many digits the row seems to hold, `count` how many were found;
/// `corners` 8 floats a row: the row turned by its slant, 4 corners clockwise from the top left.
pm_status pm_digit_rows(
  const pm_image *image, int max_rows, int *rects, float *corners, float *scores, int *digits, int *count);

/// A row as ``pm_digit_rows``' corners cut it upright (its digits the middle three fifths of its
/// height), with the print in its first and last `margin` columns that is no digit of the row
/// painted out, each component with the ground around it: components of ink shorter than 0.6 of
/// the digits' height that end above the band's middle and have no ink beneath them in its lower
/// half (a clock's or a memory number's small digits above and beside a display's value). A copy
/// when none is.
pm_status pm_row_clear_side_print(const pm_image *image, int margin, pm_image **out);

/// The loops a digit's glyph closes, for telling a 6 from a 0 or a 7 whatever the face.
typedef struct {
  /// Holes of 6 pixels or more (the glyph scaled to 64 high) enclosed by its largest component.
  int holes;
  /// Where the holes start and end, as fractions of that component's height from its top.
  double top, bottom;
  /// 1 when that component touches neither the top nor the bottom edge.
  int stands_free;
} pm_glyph_loops_result;

/// The loops of the glyph in columns `left` to `right` of the image, full height: the largest
/// component of ink (the minority side of Otsu's threshold) and the holes it encloses. No holes
/// when the columns hold no ink.
pm_status pm_glyph_loops(const pm_image *image, int left, int right, pm_glyph_loops_result *out);

#ifdef __cplusplus
}
#endif

#endif
