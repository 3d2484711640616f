#map = affine_map<(d0) -> (d0 * 8)>
module {
  func.func @matmul_bias_relu(%arg0: memref<64x64xf32>, %arg1: memref<64x64xf32>, %arg2: memref<64xf32>, %arg3: memref<64x64xf32>) {
    %c64 = arith.constant 64 : index
    %c1 = arith.constant 1 : index
    %c0 = arith.constant 0 : index
    %cst = arith.constant 0.000000e+00 : f32
    scf.forall (%arg4, %arg5) in (8, 8) {
      %0 = affine.apply #map(%arg4)
      %1 = affine.apply #map(%arg5)
      %subview = memref.subview %arg0[%0, 0] [8, 64] [1, 1] : memref<64x64xf32> to memref<8x64xf32, strided<[64, 1], offset: ?>>
      %subview_0 = memref.subview %arg1[0, %1] [64, 8] [1, 1] : memref<64x64xf32> to memref<64x8xf32, strided<[64, 1], offset: ?>>
      %subview_1 = memref.subview %arg2[%1] [8] [1] : memref<64xf32> to memref<8xf32, strided<[1], offset: ?>>
      %subview_2 = memref.subview %arg3[%0, %1] [8, 8] [1, 1] : memref<64x64xf32> to memref<8x8xf32, strided<[64, 1], offset: ?>>
      scf.forall (%arg6, %arg7) in (8, 8) {
        %subview_3 = memref.subview %subview[%arg6, 0] [1, 64] [1, 1] : memref<8x64xf32, strided<[64, 1], offset: ?>> to memref<1x64xf32, strided<[64, 1], offset: ?>>
        %subview_4 = memref.subview %subview_0[0, %arg7] [64, 1] [1, 1] : memref<64x8xf32, strided<[64, 1], offset: ?>> to memref<64x1xf32, strided<[64, 1], offset: ?>>
        %alloca = memref.alloca() {alignment = 64 : i64} : memref<1x1xf32, 6>
        scf.for %arg8 = %c0 to %c1 step %c1 {
          scf.for %arg9 = %c0 to %c1 step %c1 {
            memref.store %cst, %alloca[%arg8, %arg9] : memref<1x1xf32, 6>
          }
        }
        scf.for %arg8 = %c0 to %c1 step %c1 {
          scf.for %arg9 = %c0 to %c1 step %c1 {
            scf.for %arg10 = %c0 to %c64 step %c1 {
              %2 = memref.load %subview_3[%arg8, %arg10] : memref<1x64xf32, strided<[64, 1], offset: ?>>
              %3 = memref.load %subview_4[%arg10, %arg9] : memref<64x1xf32, strided<[64, 1], offset: ?>>
              %4 = memref.load %alloca[%arg8, %arg9] : memref<1x1xf32, 6>
              %5 = arith.mulf %2, %3 : f32
              %6 = arith.addf %4, %5 : f32
              memref.store %6, %alloca[%arg8, %arg9] : memref<1x1xf32, 6>
            }
          }
        }
        %subview_5 = memref.subview %subview_1[%arg7] [1] [1] : memref<8xf32, strided<[1], offset: ?>> to memref<1xf32, strided<[1], offset: ?>>
        %subview_6 = memref.subview %subview_2[%arg6, %arg7] [1, 1] [1, 1] : memref<8x8xf32, strided<[64, 1], offset: ?>> to memref<1x1xf32, strided<[64, 1], offset: ?>>
        scf.for %arg8 = %c0 to %c1 step %c1 {
          scf.for %arg9 = %c0 to %c1 step %c1 {
            %2 = memref.load %alloca[%arg8, %arg9] : memref<1x1xf32, 6>
            %3 = memref.load %subview_5[%arg9] : memref<1xf32, strided<[1], offset: ?>>
            %4 = arith.addf %2, %3 : f32
            %5 = arith.maximumf %4, %cst : f32
            memref.store %5, %subview_6[%arg8, %arg9] : memref<1x1xf32, strided<[64, 1], offset: ?>>
          }
        }
      }
    }
    return
  }
}
