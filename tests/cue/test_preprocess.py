"""prepare_for_digest: the seed's preprocessing, metadata stripping and clear errors."""
from __future__ import annotations

import io
import os

import pytest
from PIL import Image, ImageCms, ImageDraw

from cue.core.errors import CueError
from cue.digest.image_preprocess import prepare_for_digest

RED = (230, 20, 20)


def _marked(size, mode="RGB"):
    """Grey image with a red block in the top-left corner (to see where it ends up)."""
    im = Image.new("RGB", size, (128, 128, 128))
    w, h = size
    ImageDraw.Draw(im).rectangle([0, 0, w // 5, h // 5], fill=RED)
    return im.convert(mode) if mode != "RGB" else im


def _open(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    im.load()
    return im


def _no_metadata(im: Image.Image):
    assert im.format == "JPEG"
    assert "exif" not in im.info and len(im.getexif()) == 0
    assert "icc_profile" not in im.info
    assert "xmp" not in im.info


def _corner(im: Image.Image) -> str:
    w, h = im.size
    spots = {"tl": (w * 0.05, h * 0.05), "tr": (w * 0.95, h * 0.05),
             "bl": (w * 0.05, h * 0.95), "br": (w * 0.95, h * 0.95)}
    red = [k for k, (x, y) in spots.items() if im.getpixel((int(x), int(y)))[0] > 180
           and im.getpixel((int(x), int(y)))[1] < 90]
    assert len(red) == 1, red
    return red[0]


def test_big_screenshot_is_downscaled_to_896_as_q75_jpeg(tmp_path):
    src = tmp_path / "1763733787250.jpg"
    _marked((2560, 1600)).save(src, quality=95)
    before = sorted(os.listdir(tmp_path))
    data = prepare_for_digest(src)
    im = _open(data)
    assert im.size == (896, 560) and im.mode == "RGB"
    _no_metadata(im)
    ref = io.BytesIO()
    Image.new("RGB", (64, 64)).save(ref, "JPEG", quality=75)
    assert im.quantization == _open(ref.getvalue()).quantization  # quality 75 tables
    assert sorted(os.listdir(tmp_path)) == before  # nothing written next to it


def test_already_small_plain_jpeg_is_returned_untouched(tmp_path):
    src = tmp_path / "small.jpg"
    _marked((800, 500)).save(src, quality=92)
    assert prepare_for_digest(src) == src.read_bytes()
    gray = tmp_path / "gray.jpg"
    _marked((300, 200), "L").save(gray)
    assert prepare_for_digest(gray) == gray.read_bytes()


@pytest.mark.parametrize("orientation,corner,swapped", [
    (1, "tl", False), (2, "tr", False), (3, "br", False), (4, "bl", False),
    (5, "tl", True), (6, "tr", True), (7, "br", True), (8, "bl", True)])
def test_exif_orientation_is_applied_before_resizing(tmp_path, orientation, corner, swapped):
    src = tmp_path / f"o{orientation}.jpg"
    exif = Image.Exif()
    exif[0x0112] = orientation
    exif[0x010F] = "Camera maker that must not leak"
    _marked((1200, 600)).save(src, exif=exif.tobytes(), quality=95)
    im = _open(prepare_for_digest(src))
    assert im.size == ((448, 896) if swapped else (896, 448))
    assert _corner(im) == corner
    _no_metadata(im)


def test_small_image_with_exif_is_still_processed(tmp_path):
    src = tmp_path / "small.jpg"
    exif = Image.Exif()
    exif[0x0112] = 6
    _marked((300, 100)).save(src, exif=exif.tobytes())
    im = _open(prepare_for_digest(src))
    assert im.size == (100, 300) and _corner(im) == "tr"
    _no_metadata(im)


def test_icc_profile_is_applied_then_dropped(tmp_path):
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    src = tmp_path / "icc.jpg"
    _marked((400, 300)).save(src, icc_profile=icc)
    assert Image.open(src).info.get("icc_profile")
    data = prepare_for_digest(src)
    assert data != src.read_bytes()  # no short-circuit with a profile
    im = _open(data)
    _no_metadata(im)
    assert _corner(im) == "tl"
    assert abs(im.getpixel((200, 200))[0] - 128) < 8  # colours survive


def test_xmp_is_not_short_circuited(tmp_path):
    src = tmp_path / "xmp.jpg"
    _marked((300, 200)).save(src, xmp=b"<x:xmpmeta>where this was taken</x:xmpmeta>")
    data = prepare_for_digest(src)
    assert b"where this was taken" not in data
    _no_metadata(_open(data))


@pytest.mark.parametrize("mode,fmt", [("CMYK", "JPEG"), ("L", "PNG"), ("P", "PNG"),
                                      ("RGB", "PNG"), ("RGB", "WEBP"), ("I;16", "PNG")])
def test_modes_and_formats_become_rgb_jpeg(tmp_path, mode, fmt):
    src = tmp_path / f"x.{fmt.lower()}"
    im = _marked((1000, 700))
    if mode == "I;16":
        im = im.convert("L").point(lambda v: v).convert("I").point(lambda v: v * 256)
        im = im.convert("I;16")
    elif mode != "RGB":
        im = im.convert(mode)
    im.save(src, fmt)
    out = _open(prepare_for_digest(src))
    assert out.mode == "RGB" and out.size == (896, 627)
    _no_metadata(out)
    if mode in ("CMYK", "P", "RGB"):
        assert _corner(out) == "tl"
    else:  # grayscale: the corner is darker than the grey around it
        assert out.getpixel((20, 20))[0] < out.getpixel((600, 400))[0]


def test_transparency_lands_on_white(tmp_path):
    src = tmp_path / "alpha.png"
    im = Image.new("RGBA", (400, 300), (0, 0, 0, 0))
    ImageDraw.Draw(im).rectangle([0, 0, 80, 60], fill=RED + (255,))
    im.save(src)
    out = _open(prepare_for_digest(src))
    assert out.getpixel((300, 200)) == pytest.approx((255, 255, 255), abs=3)
    assert _corner(out) == "tl"
    pal = tmp_path / "pal.png"
    im.convert("P").save(pal, transparency=0)
    out = _open(prepare_for_digest(pal))
    assert out.mode == "RGB"


def test_max_dim_and_quality_arguments(tmp_path):
    src = tmp_path / "a.png"
    _marked((1000, 500)).save(src)
    assert _open(prepare_for_digest(src, max_dim=256)).size == (256, 128)
    small = prepare_for_digest(src, quality=20)
    assert len(small) < len(prepare_for_digest(src, quality=90))
    with pytest.raises(CueError, match="quality"):
        prepare_for_digest(src, quality=0)
    with pytest.raises(CueError, match="max_dim"):
        prepare_for_digest(src, max_dim=0)


def test_corrupt_truncated_and_missing_files(tmp_path):
    folder = tmp_path / "private-user-folder"
    folder.mkdir()
    junk = folder / "junk.jpg"
    junk.write_bytes(os.urandom(2000))
    with pytest.raises(CueError, match="junk.jpg is not an image") as err:
        prepare_for_digest(junk)
    assert "private-user-folder" not in str(err.value)

    whole = io.BytesIO()
    _marked((2560, 1600)).save(whole, "JPEG")
    cut = folder / "cut.jpg"
    cut.write_bytes(whole.getvalue()[: len(whole.getvalue()) // 2])
    with pytest.raises(CueError, match="cut.jpg is corrupt or truncated"):
        prepare_for_digest(cut)

    small_cut = folder / "small_cut.jpg"
    buf = io.BytesIO()
    _marked((300, 200)).save(buf, "JPEG")
    small_cut.write_bytes(buf.getvalue()[:600])  # would short-circuit if it were whole
    with pytest.raises(CueError, match="corrupt or truncated"):
        prepare_for_digest(small_cut)

    with pytest.raises(CueError, match="cannot read keyframe gone.jpg"):
        prepare_for_digest(folder / "gone.jpg")
