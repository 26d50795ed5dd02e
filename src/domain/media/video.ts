// The video operations the vendor's client calls (hunyuan-video-fast, wan-t2v, txt2video,
// img2video): Gantry runs no video model (the simulator draws images and speaks; the image
// upstreams make images), so each is refused with a 400 that names the operation and says
// why, before anything is admitted (docs/compat-decisions.md). Never a 404: the path exists.
import type { VideoOp } from './codes.ts';
import { notServed } from './errors.ts';

export function refuseVideo(op: VideoOp): never {
  throw notServed(op, 'video generation is not served by Gantry: no video model runs here (the simulator and the image upstreams make images only); nothing was charged');
}
