"""Turn a keyframe into the JPEG bytes a vision model gets. Nothing is written to disk.

The seed's recipe (`prepare_for_digest`):

1. Open with Pillow (and decode fully, so a corrupt or truncated file fails here).
2. Short-circuit: return the original bytes when the image already fits `max_dim`, has
   no EXIF and no ICC profile. Digest prompts send `data:image/jpeg` URLs, so this holds
   only for a JPEG in RGB or grayscale with no other metadata (XMP, comments) either.
3. `ImageOps.exif_transpose`, then RGB (an embedded ICC profile is applied first so the
   colours survive losing it; transparency lands on white).
4. Width and height are read again — the transpose may have swapped them.
5. Downscale to fit within `max_dim` (896 px: Gemma's vision tower's native size).
6. Re-encode as JPEG, quality 75, `optimize=True`; EXIF and ICC are dropped by omission.
"""
from __future__ import annotations

import io
from pathlib import Path

from cue.core.errors import CueError

_METADATA_KEYS = ("exif", "icc_profile", "xmp", "XML:com.adobe.xmp", "comment", "photoshop")


def prepare_for_digest(path: Path | str, max_dim: int = 896, quality: int = 75) -> bytes:
    """JPEG bytes of the keyframe at `path`, at most `max_dim` px on its longer side."""
    from PIL import Image, ImageOps, UnidentifiedImageError

    if max_dim < 1:
        raise CueError("max_dim must be at least 1 pixel")
    if not 1 <= quality <= 95:
        raise CueError("JPEG quality must be between 1 and 95")
    path = Path(path)
    name = path.name  # error messages name the file, never the folder it lives in
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CueError(f"cannot read keyframe {name}: {exc.strerror}") from None
    try:
        with Image.open(io.BytesIO(raw)) as im:
            width, height = im.size
            metadata = any(im.info.get(k) for k in _METADATA_KEYS) or len(im.getexif()) > 0
            fits = max(width, height) <= max_dim
            if fits and not metadata and im.format == "JPEG" and im.mode in ("RGB", "L"):
                im.load()
                return raw
            if im.format == "JPEG" and not fits:
                scale = max_dim / max(width, height)
                im.draft(None, (max(1, int(width * scale)), max(1, int(height * scale))))
            im.load()
            icc = im.info.get("icc_profile")
            out = ImageOps.exif_transpose(im)
            out = _to_rgb(out, icc)
        width, height = out.size
        if max(width, height) > max_dim:
            scale = max_dim / max(width, height)
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            out = out.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)
        buf = io.BytesIO()
        out.save(buf, "JPEG", quality=quality, optimize=True)
        return buf.getvalue()
    except (UnidentifiedImageError, Image.DecompressionBombError) as exc:
        raise CueError(f"keyframe {name} is not an image Pillow can read ({_why(exc)})") from None
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise CueError(f"keyframe {name} is corrupt or truncated ({_why(exc)})") from None


def _to_rgb(im, icc: bytes | None):
    from PIL import Image

    if icc and im.mode in ("RGB", "CMYK", "L"):
        try:
            from PIL import ImageCms

            src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
            srgb = ImageCms.createProfile("sRGB")
            return ImageCms.profileToProfile(im, src, srgb, outputMode="RGB")
        except Exception:  # noqa: BLE001, S110 - a broken profile: fall back to a plain convert
            pass
    if im.mode == "P" and "transparency" in im.info or im.mode in ("RGBA", "LA", "PA", "RGBa"):
        rgba = im.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    if im.mode in ("I;16", "I;16B", "I;16L", "I"):
        im = im.point(lambda v: v / 256).convert("L") if im.mode != "I" else im.convert("L")
    return im if im.mode == "RGB" else im.convert("RGB")


def _why(exc: BaseException) -> str:
    text = str(exc).split("\n")[0][:120]
    return text or type(exc).__name__
