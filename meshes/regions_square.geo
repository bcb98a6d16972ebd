// 2D sample with element regions: the rectangle [-1,1] x [0,1] cut at x = 0
// into Physical Surface "left" (x < 0) and "right" (x > 0), meshed
// conformingly across the cut; boundary "wall" all round.
SetFactory("Built-in");
lc = 0.5;
Point(1) = {-1, 0, 0, lc};
Point(2) = {0, 0, 0, lc};
Point(3) = {1, 0, 0, lc};
Point(4) = {1, 1, 0, lc};
Point(5) = {0, 1, 0, lc};
Point(6) = {-1, 1, 0, lc};
Line(1) = {1, 2};
Line(2) = {2, 3};
Line(3) = {3, 4};
Line(4) = {4, 5};
Line(5) = {5, 6};
Line(6) = {6, 1};
Line(7) = {2, 5}; // the cut
Curve Loop(1) = {1, 7, 5, 6};
Plane Surface(1) = {1};
Curve Loop(2) = {2, 3, 4, -7};
Plane Surface(2) = {2};
Physical Curve("wall") = {1, 2, 3, 4, 5, 6};
Physical Surface("left") = {1};
Physical Surface("right") = {2};
