// 3D sample with a curved wall (issue 40): the cylinder r <= 0.5,
// 0 <= z <= 1, built-in kernel.  Boundary tags "wall" (r = 0.5), "bottom"
// (z = 0), "top" (z = 1); region "domain".  Mesh it curved with [mesh]
// geometry_order = k (2 or 3): the high-order nodes of the wall's faces lie on
// the cylinder.  `lc` is the default element size ([mesh] size overrides it).
lc = 0.4;
R = 0.5;
Point(1) = {0, 0, 0, lc};
Point(2) = {R, 0, 0, lc};
Point(3) = {0, R, 0, lc};
Point(4) = {-R, 0, 0, lc};
Point(5) = {0, -R, 0, lc};
Circle(1) = {2, 1, 3};
Circle(2) = {3, 1, 4};
Circle(3) = {4, 1, 5};
Circle(4) = {5, 1, 2};
Curve Loop(1) = {1, 2, 3, 4};
Plane Surface(1) = {1};
out[] = Extrude {0, 0, 1} { Surface{1}; };
// out[0]: the top, out[1]: the volume, out[2..5]: the four wall patches
Physical Surface("bottom") = {1};
Physical Surface("top") = {out[0]};
Physical Surface("wall") = {out[2], out[3], out[4], out[5]};
Physical Volume("domain") = {out[1]};
