module {
  func.func @matmul_bias_relu(%arg0: tensor<256x256xf32>, %arg1: tensor<256x256xf32>, %arg2: tensor<256xf32>) -> tensor<256x256xf32> {
    %0 = ub.poison : f32
    %cst = arith.constant dense<0.000000e+00> : vector<8x32xf32>
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    %c8 = arith.constant 8 : index
    %c256 = arith.constant 256 : index
    %c0 = arith.constant 0 : index
    %1 = tensor.empty() : tensor<256x256xf32>
    %2 = scf.for %arg3 = %c0 to %c256 step %c8 iter_args(%arg4 = %1) -> (tensor<256x256xf32>) {
      %5 = scf.for %arg5 = %c0 to %c256 step %c32 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %6 = vector.transfer_write %cst, %arg6[%arg3, %arg5] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<256x256xf32>
        scf.yield %6 : tensor<256x256xf32>
      }
      scf.yield %5 : tensor<256x256xf32>
    }
    %3 = scf.for %arg3 = %c0 to %c256 step %c8 iter_args(%arg4 = %2) -> (tensor<256x256xf32>) {
      %5 = scf.for %arg5 = %c0 to %c256 step %c32 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %6 = vector.transfer_read %arg6[%arg3, %arg5], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<8x32xf32>
        %7 = scf.for %arg7 = %c0 to %c256 step %c1 iter_args(%arg8 = %6) -> (vector<8x32xf32>) {
          %9 = vector.transfer_read %arg0[%arg3, %arg7], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<8x1xf32>
          %10 = vector.transfer_read %arg1[%arg7, %arg5], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<1x32xf32>
          %11 = vector.extract %10[0] : vector<32xf32> from vector<1x32xf32>
          %12 = vector.extract %9[0, 0] : f32 from vector<8x1xf32>
          %13 = vector.broadcast %12 : f32 to vector<32xf32>
          %14 = vector.extract %arg8[0] : vector<32xf32> from vector<8x32xf32>
          %15 = vector.fma %13, %11, %14 : vector<32xf32>
          %16 = vector.extract %9[1, 0] : f32 from vector<8x1xf32>
          %17 = vector.broadcast %16 : f32 to vector<32xf32>
          %18 = vector.extract %arg8[1] : vector<32xf32> from vector<8x32xf32>
          %19 = vector.fma %17, %11, %18 : vector<32xf32>
          %20 = vector.extract %9[2, 0] : f32 from vector<8x1xf32>
          %21 = vector.broadcast %20 : f32 to vector<32xf32>
          %22 = vector.extract %arg8[2] : vector<32xf32> from vector<8x32xf32>
          %23 = vector.fma %21, %11, %22 : vector<32xf32>
          %24 = vector.extract %9[3, 0] : f32 from vector<8x1xf32>
          %25 = vector.broadcast %24 : f32 to vector<32xf32>
          %26 = vector.extract %arg8[3] : vector<32xf32> from vector<8x32xf32>
          %27 = vector.fma %25, %11, %26 : vector<32xf32>
          %28 = vector.extract %9[4, 0] : f32 from vector<8x1xf32>
          %29 = vector.broadcast %28 : f32 to vector<32xf32>
          %30 = vector.extract %arg8[4] : vector<32xf32> from vector<8x32xf32>
          %31 = vector.fma %29, %11, %30 : vector<32xf32>
          %32 = vector.extract %9[5, 0] : f32 from vector<8x1xf32>
          %33 = vector.broadcast %32 : f32 to vector<32xf32>
          %34 = vector.extract %arg8[5] : vector<32xf32> from vector<8x32xf32>
          %35 = vector.fma %33, %11, %34 : vector<32xf32>
          %36 = vector.extract %9[6, 0] : f32 from vector<8x1xf32>
          %37 = vector.broadcast %36 : f32 to vector<32xf32>
          %38 = vector.extract %arg8[6] : vector<32xf32> from vector<8x32xf32>
          %39 = vector.fma %37, %11, %38 : vector<32xf32>
          %40 = vector.extract %9[7, 0] : f32 from vector<8x1xf32>
          %41 = vector.broadcast %40 : f32 to vector<32xf32>
          %42 = vector.extract %arg8[7] : vector<32xf32> from vector<8x32xf32>
          %43 = vector.fma %41, %11, %42 : vector<32xf32>
          %44:32 = vector.to_elements %15 : vector<32xf32>
          %45:32 = vector.to_elements %19 : vector<32xf32>
          %46:32 = vector.to_elements %23 : vector<32xf32>
          %47:32 = vector.to_elements %27 : vector<32xf32>
          %48:32 = vector.to_elements %31 : vector<32xf32>
          %49:32 = vector.to_elements %35 : vector<32xf32>
          %50:32 = vector.to_elements %39 : vector<32xf32>
          %51:32 = vector.to_elements %43 : vector<32xf32>
          %52 = vector.from_elements %44#0, %44#1, %44#2, %44#3, %44#4, %44#5, %44#6, %44#7, %44#8, %44#9, %44#10, %44#11, %44#12, %44#13, %44#14, %44#15, %44#16, %44#17, %44#18, %44#19, %44#20, %44#21, %44#22, %44#23, %44#24, %44#25, %44#26, %44#27, %44#28, %44#29, %44#30, %44#31, %45#0, %45#1, %45#2, %45#3, %45#4, %45#5, %45#6, %45#7, %45#8, %45#9, %45#10, %45#11, %45#12, %45#13, %45#14, %45#15, %45#16, %45#17, %45#18, %45#19, %45#20, %45#21, %45#22, %45#23, %45#24, %45#25, %45#26, %45#27, %45#28, %45#29, %45#30, %45#31, %46#0, %46#1, %46#2, %46#3, %46#4, %46#5, %46#6, %46#7, %46#8, %46#9, %46#10, %46#11, %46#12, %46#13, %46#14, %46#15, %46#16, %46#17, %46#18, %46#19, %46#20, %46#21, %46#22, %46#23, %46#24, %46#25, %46#26, %46#27, %46#28, %46#29, %46#30, %46#31, %47#0, %47#1, %47#2, %47#3, %47#4, %47#5, %47#6, %47#7, %47#8, %47#9, %47#10, %47#11, %47#12, %47#13, %47#14, %47#15, %47#16, %47#17, %47#18, %47#19, %47#20, %47#21, %47#22, %47#23, %47#24, %47#25, %47#26, %47#27, %47#28, %47#29, %47#30, %47#31, %48#0, %48#1, %48#2, %48#3, %48#4, %48#5, %48#6, %48#7, %48#8, %48#9, %48#10, %48#11, %48#12, %48#13, %48#14, %48#15, %48#16, %48#17, %48#18, %48#19, %48#20, %48#21, %48#22, %48#23, %48#24, %48#25, %48#26, %48#27, %48#28, %48#29, %48#30, %48#31, %49#0, %49#1, %49#2, %49#3, %49#4, %49#5, %49#6, %49#7, %49#8, %49#9, %49#10, %49#11, %49#12, %49#13, %49#14, %49#15, %49#16, %49#17, %49#18, %49#19, %49#20, %49#21, %49#22, %49#23, %49#24, %49#25, %49#26, %49#27, %49#28, %49#29, %49#30, %49#31, %50#0, %50#1, %50#2, %50#3, %50#4, %50#5, %50#6, %50#7, %50#8, %50#9, %50#10, %50#11, %50#12, %50#13, %50#14, %50#15, %50#16, %50#17, %50#18, %50#19, %50#20, %50#21, %50#22, %50#23, %50#24, %50#25, %50#26, %50#27, %50#28, %50#29, %50#30, %50#31, %51#0, %51#1, %51#2, %51#3, %51#4, %51#5, %51#6, %51#7, %51#8, %51#9, %51#10, %51#11, %51#12, %51#13, %51#14, %51#15, %51#16, %51#17, %51#18, %51#19, %51#20, %51#21, %51#22, %51#23, %51#24, %51#25, %51#26, %51#27, %51#28, %51#29, %51#30, %51#31 : vector<8x32xf32>
          scf.yield %52 : vector<8x32xf32>
        }
        %8 = vector.transfer_write %7, %arg6[%arg3, %arg5] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<256x256xf32>
        scf.yield %8 : tensor<256x256xf32>
      }
      scf.yield %5 : tensor<256x256xf32>
    }
    %4 = scf.for %arg3 = %c0 to %c256 step %c8 iter_args(%arg4 = %1) -> (tensor<256x256xf32>) {
      %5 = scf.for %arg5 = %c0 to %c256 step %c32 iter_args(%arg6 = %arg4) -> (tensor<256x256xf32>) {
        %6 = vector.transfer_read %3[%arg3, %arg5], %0 {in_bounds = [true, true]} : tensor<256x256xf32>, vector<8x32xf32>
        %7 = vector.transfer_read %arg2[%arg5], %0 {in_bounds = [true]} : tensor<256xf32>, vector<32xf32>
        %8 = vector.broadcast %7 : vector<32xf32> to vector<8x32xf32>
        %9 = arith.addf %6, %8 : vector<8x32xf32>
        %10 = arith.maximumf %9, %cst : vector<8x32xf32>
        %11 = vector.transfer_write %10, %arg6[%arg3, %arg5] {in_bounds = [true, true]} : vector<8x32xf32>, tensor<256x256xf32>
        scf.yield %11 : tensor<256x256xf32>
      }
      scf.yield %5 : tensor<256x256xf32>
    }
    return %4 : tensor<256x256xf32>
  }
}
